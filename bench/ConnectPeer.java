// The peer of the compiled job in `scripts/bench connect-peer` (bench/connect_peer.py): the same records through
// what a Kafka Connect worker runs for them, in ONE thread: JsonConverter (schemaless, as a JSON pipeline without
// schema envelopes is configured) for the key and the value, SimpleHeaderConverter for each header, a SinkRecord,
// the chain of Kafka Connect's own transforms and predicates (built by SmtHarness.stages from the same document
// SmtHarness reads), then the converters back to bytes as a Kafka sink writes them. Compiled with javac together
// with tests/differential/SmtHarness.java against the jars scripts/fetch-kafka-jars fetches:
//
//   java -cp CLASSES:JARS ConnectPeer RECORDS_DIR CHAIN_JSON
//
// RECORDS_DIR: Spark's JSON lines (part-*.json, read in name order), one Kafka record per line:
//   {"key": base64, "value": base64, "topic": "...", "partition": 0, "offset": 7, "timestamp": epoch millis,
//    "headers": [{"key": "...", "value": base64}]}                    (a missing key or value is null)
// CHAIN_JSON: {"predicates": {...}, "transforms": [...]} as SmtHarness reads them.
// The records are read into memory once; then commands on stdin, one per line, each answered by one JSON line:
//   pass            every record through converters and chain; {"records", "written", "dropped", "errors",
//                   "bytes_out", "wall_s", "thread_cpu_s", "process_cpu_s", "gc_s"} (the thread's CPU time from
//                   ThreadMXBean, the whole JVM's from the OperatingSystemMXBean, GC time from the collectors)
//   convert         the same without the chain (converters only: in, then straight out)
//   dump PATH N     the first N records through converters and chain, each outcome a JSON line in PATH:
//                   {"i", "topic", "key": text|null, "value": text|null, "headers": [[k, text|null]]},
//                   {"i", "dropped": true} or {"i", "error": "..."}; answers {"dumped": N}
//   jfr-start PATH  a Java Flight Recorder recording (the JDK's `profile` settings) into PATH; jfr-stop ends it
//   quit            (or end of input)
// The first line out, once the records are read: {"ready": N, "kafka": "<Kafka version>"}.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import java.util.stream.Stream;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;

public class ConnectPeer {
    static final ObjectMapper MAPPER = new ObjectMapper();

    /** The records as the consumer hands them over: bytes and metadata, one array per field. */
    final String[] topics;
    final int[] partitions;
    final long[] offsets;
    final long[] timestamps;
    final byte[][] keys;
    final byte[][] values;
    final String[][] headerKeys;
    final byte[][][] headerValues;

    final List<SmtHarness.Stage> stages;
    final JsonConverter keyConverter = converter(true);
    final JsonConverter valueConverter = converter(false);
    final SimpleHeaderConverter headerConverter = new SimpleHeaderConverter();

    /** What one pass wrote, summed so that nothing it computes is dead code. */
    long written;
    long dropped;
    long errors;
    long bytesOut;

    /** One record's outcome for `dump` (null while timing: nothing is kept). */
    interface Sink {
        void write(int i, SinkRecord record, byte[] key, byte[] value, List<String[]> headers);

        void skip(int i, String why);
    }

    ConnectPeer(List<JsonNode> records, List<SmtHarness.Stage> stages) throws Exception {
        int n = records.size();
        topics = new String[n];
        partitions = new int[n];
        offsets = new long[n];
        timestamps = new long[n];
        keys = new byte[n][];
        values = new byte[n][];
        headerKeys = new String[n][];
        headerValues = new byte[n][][];
        for (int i = 0; i < n; i++) {
            JsonNode r = records.get(i);
            topics[i] = r.get("topic").asText().intern();
            partitions[i] = r.get("partition").asInt();
            offsets[i] = r.get("offset").asLong();
            timestamps[i] = r.get("timestamp").asLong();
            keys[i] = r.hasNonNull("key") ? r.get("key").binaryValue() : null;
            values[i] = r.hasNonNull("value") ? r.get("value").binaryValue() : null;
            JsonNode headers = r.path("headers");
            headerKeys[i] = new String[headers.size()];
            headerValues[i] = new byte[headers.size()][];
            for (int h = 0; h < headers.size(); h++) {
                headerKeys[i][h] = headers.get(h).get("key").asText().intern();
                JsonNode v = headers.get(h).get("value");
                headerValues[i][h] = v == null || v.isNull() ? null : v.binaryValue();
            }
        }
        this.stages = stages;
        headerConverter.configure(Map.of());
    }

    static JsonConverter converter(boolean isKey) {
        JsonConverter converter = new JsonConverter();
        converter.configure(Map.of("schemas.enable", "false"), isKey);
        return converter;
    }

    /** Record i as a sink task receives it: key, value and headers through the converters. */
    SinkRecord read(int i) {
        String topic = topics[i];
        SchemaAndValue key = keyConverter.toConnectData(topic, keys[i]);
        SchemaAndValue value = valueConverter.toConnectData(topic, values[i]);
        ConnectHeaders headers = new ConnectHeaders();
        String[] names = headerKeys[i];
        for (int h = 0; h < names.length; h++) {
            headers.add(names[h], headerConverter.toConnectHeader(topic, names[h], headerValues[i][h]));
        }
        return new SinkRecord(topic, partitions[i], key.schema(), key.value(), value.schema(), value.value(),
                offsets[i], timestamps[i], TimestampType.CREATE_TIME, headers);
    }

    /** The record as a Kafka sink writes it: key, value and headers through the converters. */
    void write(int i, SinkRecord record, Sink sink) {
        String topic = record.topic();
        byte[] key = keyConverter.fromConnectData(topic, record.keySchema(), record.key());
        byte[] value = valueConverter.fromConnectData(topic, record.valueSchema(), record.value());
        long bytes = topic.length() + (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
        List<String[]> shown = sink == null ? null : new ArrayList<>();
        for (Header h : record.headers()) {
            byte[] text = headerConverter.fromConnectHeader(topic, h.key(), h.schema(), h.value());
            bytes += h.key().length() + (text == null ? 0 : text.length);
            if (shown != null) {
                shown.add(new String[] {h.key(), text == null ? null : new String(text, StandardCharsets.UTF_8)});
            }
        }
        written++;
        bytesOut += bytes;
        if (sink != null) {
            sink.write(i, record, key, value, shown);
        }
    }

    void process(int i, boolean chain, Sink sink) {
        SinkRecord record;
        try {
            record = read(i);
            if (chain) {
                for (SmtHarness.Stage stage : stages) {
                    record = stage.apply(record);
                    if (record == null) {
                        dropped++;
                        if (sink != null) {
                            sink.skip(i, null);
                        }
                        return;
                    }
                }
            }
            write(i, record, sink);
        } catch (RuntimeException e) {  // a record Kafka Connect would fail (errors.tolerance: none stops the task)
            errors++;
            if (sink != null) {
                sink.skip(i, e.toString());
            }
        }
    }

    ObjectNode pass(boolean chain) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        written = dropped = errors = bytesOut = 0;
        long gc0 = gcMillis();
        long process0 = os.getProcessCpuTime();
        long cpu0 = threads.getCurrentThreadCpuTime();
        long wall0 = System.nanoTime();
        for (int i = 0; i < topics.length; i++) {
            process(i, chain, null);
        }
        long wall = System.nanoTime() - wall0;
        long cpu = threads.getCurrentThreadCpuTime() - cpu0;
        long process = os.getProcessCpuTime() - process0;
        ObjectNode out = MAPPER.createObjectNode();
        out.put("records", topics.length);
        out.put("written", written);
        out.put("dropped", dropped);
        out.put("errors", errors);
        out.put("bytes_out", bytesOut);
        out.put("wall_s", wall / 1e9);
        out.put("thread_cpu_s", cpu / 1e9);
        out.put("process_cpu_s", process / 1e9);
        out.put("gc_s", (gcMillis() - gc0) / 1e3);
        return out;
    }

    static long gcMillis() {
        long total = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }

    ObjectNode dump(Path path, int limit) throws Exception {
        int n = Math.min(limit, topics.length);
        try (BufferedWriter out = Files.newBufferedWriter(path, StandardCharsets.UTF_8)) {
            Sink sink = new Sink() {
                public void write(int i, SinkRecord record, byte[] key, byte[] value, List<String[]> headers) {
                    ObjectNode line = MAPPER.createObjectNode();
                    line.put("i", i);
                    line.put("topic", record.topic());
                    line.put("key", key == null ? null : new String(key, StandardCharsets.UTF_8));
                    line.put("value", value == null ? null : new String(value, StandardCharsets.UTF_8));
                    ArrayNode pairs = line.putArray("headers");
                    for (String[] h : headers) {
                        pairs.addArray().add(h[0]).add(h[1]);
                    }
                    emit(line);
                }

                public void skip(int i, String why) {
                    ObjectNode line = MAPPER.createObjectNode();
                    line.put("i", i);
                    if (why == null) {
                        line.put("dropped", true);
                    } else {
                        line.put("error", why);
                    }
                    emit(line);
                }

                void emit(ObjectNode line) {
                    try {
                        out.write(MAPPER.writeValueAsString(line));
                        out.newLine();
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
            };
            for (int i = 0; i < n; i++) {
                process(i, true, sink);
            }
        }
        return MAPPER.createObjectNode().put("dumped", n);
    }

    static List<JsonNode> readRecords(Path folder) throws Exception {
        List<JsonNode> records = new ArrayList<>();
        List<Path> parts;
        try (Stream<Path> files = Files.list(folder)) {
            parts = files.filter(p -> p.getFileName().toString().startsWith("part-")).sorted().toList();
        }
        for (Path part : parts) {
            try (MappingIterator<JsonNode> lines = MAPPER.readerFor(JsonNode.class).readValues(part.toFile())) {
                while (lines.hasNext()) {
                    records.add(lines.next());
                }
            }
        }
        return records;
    }

    public static void main(String[] args) throws Exception {
        TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
        List<SmtHarness.Stage> stages = SmtHarness.stages(MAPPER.readTree(Path.of(args[1]).toFile()));
        ConnectPeer peer = new ConnectPeer(readRecords(Path.of(args[0])), stages);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        out.println(MAPPER.createObjectNode().put("ready", peer.topics.length).put("kafka", AppInfoParser.getVersion()));
        Recording recording = null;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] command = line.trim().split(" ");
            switch (command[0]) {
                case "pass" -> out.println(peer.pass(true));
                case "convert" -> out.println(peer.pass(false));
                case "dump" -> out.println(peer.dump(Path.of(command[1]), Integer.parseInt(command[2])));
                case "jfr-start" -> {
                    recording = new Recording(Configuration.getConfiguration("profile"));
                    recording.setDestination(Path.of(command[1]));
                    recording.start();
                    out.println(MAPPER.createObjectNode().put("jfr", "started"));
                }
                case "jfr-stop" -> {
                    recording.stop();  // writes the destination
                    recording.close();
                    out.println(MAPPER.createObjectNode().put("jfr", "written"));
                }
                case "quit" -> {
                    return;
                }
                default -> out.println(MAPPER.createObjectNode().put("error", "unknown command " + line));
            }
        }
    }
}
