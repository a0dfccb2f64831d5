"""Java's text of numbers and dates, as the JVM writes them: Float/Double.toString (JDK 19+),
BigDecimal.toString, and Kafka Connect's ISO date text (`Values.dateFormatFor`, UTC)."""

from __future__ import annotations

import math
import struct
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # fractions (and decimal, which it imports) only where a value needs exact arithmetic
    from fractions import Fraction

DAY = 86_400_000


def round_f32(x: float) -> float:
    """Java's (float) of a double: round half even, overflow to infinity."""
    try:
        return struct.unpack(">f", struct.pack(">f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def f32_of(value: Fraction) -> float:
    """The float nearest to an exact decimal (BigDecimal.floatValue), ties to even."""
    from fractions import Fraction

    if value == 0:
        return 0.0
    limit = Fraction(2**128 - 2**103)  # halfway between Float.MAX_VALUE and the next power of two
    if abs(value) >= limit:
        return -math.inf if value < 0 else math.inf
    guess = round_f32(float(value))
    bits = struct.unpack(">i", struct.pack(">f", guess))[0]
    around = [struct.unpack(">f", struct.pack(">i", b))[0] for b in (bits - 1, bits, bits + 1) if -(2**31) <= b < 2**31]
    finite = [f for f in around if (math.isfinite(f) and (f > 0) == (value > 0)) or f == 0]
    best = min(finite, key=lambda f: (abs(Fraction(f) - value), struct.unpack(">i", struct.pack(">f", f))[0] & 1))
    return best


def _shortest_digits(x: float, single: bool) -> tuple[str, int]:
    """(digits, exponent) of the shortest decimal that reads back as `x` (JDK 19+ Double/Float.toString):
    value = 0.d1d2... * 10**exponent; a one-digit result yields to the closest two-digit one."""
    from fractions import Fraction

    back = (lambda text: f32_of(Fraction(text))) if single else float
    for n in range(1, 18):
        text = f"{x:.{n - 1}e}"
        if back(text) == x:
            if n == 1:
                two = f"{x:.1e}"
                if back(two) == x:
                    text = two
            mantissa, exp = text.split("e")
            digits = mantissa.replace(".", "").lstrip("-").rstrip("0") or "0"
            return digits, int(exp) + 1
    raise AssertionError(x)


def java_float_text(x: float, single: bool) -> str:
    """Java's Float.toString (single) or Double.toString, as JDK 19+ writes them."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    sign = "-" if math.copysign(1.0, x) < 0 else ""
    if x == 0:
        return sign + "0.0"
    digits, exp = _shortest_digits(abs(x), single)
    if 1e-3 <= abs(x) < 1e7:
        if exp <= 0:
            return f"{sign}0.{'0' * -exp}{digits}"
        whole, frac = digits[:exp].ljust(exp, "0"), digits[exp:]
        return f"{sign}{whole}.{frac or '0'}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exp - 1}"


def big_decimal_text(unscaled: int, scale: int) -> str:
    """Java's BigDecimal.toString: plain unless the scale is negative or the exponent below -6."""
    coeff = str(abs(unscaled))
    sign = "-" if unscaled < 0 else ""
    adjusted = -scale + len(coeff) - 1
    if scale >= 0 and adjusted >= -6:
        if scale == 0:
            return sign + coeff
        padded = coeff.rjust(scale + 1, "0")
        return f"{sign}{padded[:-scale]}.{padded[-scale:]}"
    body = coeff[0] + ("." + coeff[1:] if len(coeff) > 1 else "")
    return f"{sign}{body}E{'+' if adjusted > 0 else ''}{adjusted}" if adjusted else sign + body


def days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def _civil_from_days(z: int) -> tuple[int, int, int]:
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (m <= 2), m, d


def date_text(millis: int) -> str:
    """Values.dateFormatFor: before 1970-01-02 only the time of day; at midnight only the date."""
    days, tod = divmod(millis, DAY)
    time = f"{tod // 3_600_000:02d}:{tod // 60_000 % 60:02d}:{tod // 1000 % 60:02d}.{tod % 1000:03d}Z"
    if millis < DAY:
        return time
    y, m, d = _civil_from_days(days)
    date = f"{y:04d}-{m:02d}-{d:02d}"
    return date if tod == 0 else f"{date}T{time}"
