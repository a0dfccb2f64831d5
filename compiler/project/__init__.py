"""The compiler over a project's files: finding them and running the stages over each (`driver`), many at once in
worker processes (`batch`), the job cache `check` reads (`job_cache`, keyed by pipec's `fingerprint`), and files
written whole (`atomic_write`).
"""
