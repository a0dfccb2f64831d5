// Runs records through Kafka Connect's real transform and predicate classes (the reference side of
// tests/differential). Java 17 single-file launch, no build tool:
//
//   java -cp "$(scripts/fetch-kafka-jars)" tests/differential/SmtHarness.java < documents.json
//
// stdin: one or more JSON documents, one after another (several documents = one JVM start):
//   {"id": "...",
//    "predicates": {"alias": {"class": "...", "config": {"k": "v"}}},                  (optional)
//    "transforms": [{"class": "...", "config": {"k": "v"}, "predicate": "alias", "negate": false}],
//    "records": [{"topic": "t", "partition": 0, "offset": 7, "timestamp": 1700000000000,
//                 "key": {"schema": ..., "payload": ...} | null, "value": ... | null,
//                 "headers": [["k", "text" | null], ...]}]}
// stdout: one line per document, in order:
//   {"id": "...", "results": [<record> | {"dropped": true} | {"error": "<exception class>: <message>"}]}
//   or {"id": "...", "config_error": "<exception class>: <message>"} when configure() throws.
//   <record> = {"topic", "partition", "offset", "timestamp", "key", "value", "headers": [[k, text | null]]}
//
// Keys and values travel as JsonConverter envelopes (schemas.enable=true) both ways: an envelope with a schema and
// a null payload is a with-schema null (pipec's model: every record has a schema); JSON null is a null schema and
// value. Config values are passed as given (strings, as a connector's properties would carry them). Input header
// values are STRING-schema Connect headers (null stays null); output header values are the text
// SimpleHeaderConverter writes. Each record is a SinkRecord (offset available); each step applies its
// transformation when `predicate == null || negate ^ predicate.test(record)` (TransformationStage), and a null
// result ends the chain (the record is dropped). Everything runs in UTC.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

public class SmtHarness {
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** One step of the chain: the transformation, and its predicate (or null) with negate. */
    record Stage(Transformation<SinkRecord> transformation, Predicate<SinkRecord> predicate, boolean negate) {
        SinkRecord apply(SinkRecord record) {
            if (predicate == null || negate ^ predicate.test(record)) {
                return transformation.apply(record);
            }
            return record;
        }
    }

    final JsonConverter keyConverter = converter(true);
    final JsonConverter valueConverter = converter(false);
    final SimpleHeaderConverter headerConverter = new SimpleHeaderConverter();

    SmtHarness() {
        headerConverter.configure(Map.of());
    }

    static JsonConverter converter(boolean isKey) {
        JsonConverter converter = new JsonConverter();
        converter.configure(Map.of("schemas.enable", "true", "decimal.format", "BASE64"), isKey);
        return converter;
    }

    public static void main(String[] args) throws Exception {
        TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
        if (args.length > 0 && args[0].equals("--version")) {
            System.out.println(AppInfoParser.getVersion());
            return;
        }
        SmtHarness harness = new SmtHarness();
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (MappingIterator<JsonNode> docs = MAPPER.readerFor(JsonNode.class).readValues(in)) {
            while (docs.hasNext()) {
                out.println(MAPPER.writeValueAsString(harness.run(docs.next())));
                out.flush();
            }
        }
    }

    ObjectNode run(JsonNode doc) {
        ObjectNode result = NODES.objectNode();
        result.set("id", doc.get("id"));
        List<Stage> stages;
        try {
            stages = stages(doc);
        } catch (Exception e) {
            result.put("config_error", e.toString());
            return result;
        }
        ArrayNode results = result.putArray("results");
        for (JsonNode rec : doc.path("records")) {
            results.add(runRecord(stages, rec));
        }
        for (Stage stage : stages) {
            stage.transformation().close();
        }
        return result;
    }

    ObjectNode runRecord(List<Stage> stages, JsonNode rec) {
        ObjectNode out = NODES.objectNode();
        SinkRecord record;
        try {
            record = toRecord(rec);
        } catch (Exception e) {
            out.put("input_error", e.toString());
            return out;
        }
        try {
            for (Stage stage : stages) {
                record = stage.apply(record);
                if (record == null) {
                    out.put("dropped", true);
                    return out;
                }
            }
        } catch (Exception e) {
            out.put("error", e.toString());
            return out;
        }
        try {
            return fromRecord(record);
        } catch (Exception e) {  // the record cannot be written by the converters (Kafka's converter stage)
            out.put("error", "converter: " + e);
            return out;
        }
    }

    @SuppressWarnings("unchecked")
    static List<Stage> stages(JsonNode doc) throws Exception {
        Map<String, Predicate<SinkRecord>> predicates = new HashMap<>();
        for (Map.Entry<String, JsonNode> entry : doc.path("predicates").properties()) {
            String className = entry.getValue().get("class").asText();
            Predicate<SinkRecord> predicate = (Predicate<SinkRecord>) instantiate(className);
            predicate.configure(config(entry.getValue().path("config")));
            predicates.put(entry.getKey(), predicate);
        }
        List<Stage> stages = new ArrayList<>();
        for (JsonNode step : doc.path("transforms")) {
            Transformation<SinkRecord> t = (Transformation<SinkRecord>) instantiate(step.get("class").asText());
            t.configure(config(step.path("config")));
            Predicate<SinkRecord> predicate = null;
            if (step.hasNonNull("predicate")) {
                predicate = predicates.get(step.get("predicate").asText());
                if (predicate == null) {
                    throw new IllegalArgumentException("unknown predicate " + step.get("predicate"));
                }
            }
            stages.add(new Stage(t, predicate, step.path("negate").asBoolean(false)));
        }
        return stages;
    }

    static Object instantiate(String className) throws Exception {
        return Class.forName(className).getDeclaredConstructor().newInstance();
    }

    /** Config values as a connector's properties carry them: text (lists comma-separated by the caller). */
    static Map<String, Object> config(JsonNode node) {
        Map<String, Object> config = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : node.properties()) {
            JsonNode v = entry.getValue();
            config.put(entry.getKey(), v.isNull() ? null : v.isTextual() ? v.asText() : v.toString());
        }
        return config;
    }

    SinkRecord toRecord(JsonNode rec) throws Exception {
        String topic = rec.get("topic").asText();
        SchemaAndValue key = toConnect(keyConverter, topic, rec.get("key"));
        SchemaAndValue value = toConnect(valueConverter, topic, rec.get("value"));
        ConnectHeaders headers = new ConnectHeaders();
        for (JsonNode h : rec.path("headers")) {
            JsonNode v = h.get(1);
            headers.add(h.get(0).asText(), v == null || v.isNull() ? null : v.asText(), Schema.OPTIONAL_STRING_SCHEMA);
        }
        JsonNode ts = rec.get("timestamp");
        Long timestamp = ts == null || ts.isNull() ? null : ts.asLong();
        return new SinkRecord(topic, rec.path("partition").asInt(0), key.schema(), key.value(), value.schema(),
                value.value(), rec.path("offset").asLong(0), timestamp,
                timestamp == null ? TimestampType.NO_TIMESTAMP_TYPE : TimestampType.CREATE_TIME, headers);
    }

    static SchemaAndValue toConnect(JsonConverter converter, String topic, JsonNode envelope) throws Exception {
        if (envelope == null || envelope.isNull()) {
            return SchemaAndValue.NULL;
        }
        return converter.toConnectData(topic, MAPPER.writeValueAsBytes(envelope));
    }

    ObjectNode fromRecord(SinkRecord record) throws Exception {
        ObjectNode out = NODES.objectNode();
        out.put("topic", record.topic());
        if (record.kafkaPartition() == null) {
            out.putNull("partition");
        } else {
            out.put("partition", record.kafkaPartition());
        }
        out.put("offset", record.kafkaOffset());
        if (record.timestamp() == null) {
            out.putNull("timestamp");
        } else {
            out.put("timestamp", record.timestamp());
        }
        out.set("key", fromConnect(keyConverter, record.topic(), record.keySchema(), record.key()));
        out.set("value", fromConnect(valueConverter, record.topic(), record.valueSchema(), record.value()));
        ArrayNode headers = out.putArray("headers");
        for (Header h : record.headers()) {
            byte[] bytes = headerConverter.fromConnectHeader(record.topic(), h.key(), h.schema(), h.value());
            ArrayNode pair = headers.addArray();
            pair.add(h.key());
            if (bytes == null) {
                pair.addNull();
            } else {
                pair.add(new String(bytes, StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    static JsonNode fromConnect(JsonConverter converter, String topic, Schema schema, Object value) throws Exception {
        byte[] bytes = converter.fromConnectData(topic, schema, value);
        return bytes == null ? NODES.nullNode() : MAPPER.readTree(bytes);
    }
}
