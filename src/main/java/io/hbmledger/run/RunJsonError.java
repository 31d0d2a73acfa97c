package io.hbmledger.run;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Turns Jackson's complaint about run.json into the user's terms: the file, line and column, the
 * field's path as written in run.json ({@code deployment.tp}, {@code evidence[1].rank}), the JSON
 * type the schema expects there and what the file holds instead. Jackson's own text names Java
 * types ({@code java.lang.Integer}, {@code CoercionConfig}) and no field.
 */
final class RunJsonError {

    private RunJsonError() {
    }

    static RunFileException of(String shown, byte[] json, JsonProcessingException e) {
        JsonLocation loc = e.getLocation();
        int line = loc == null ? 0 : Math.max(loc.getLineNr(), 0);
        int column = loc == null ? 0 : Math.max(loc.getColumnNr(), 0);
        StreamReadException syntax = syntaxError(e);
        String duplicate = syntax == null ? null : duplicateKey(syntax);
        if (duplicate != null) {
            JsonLocation at = syntax.getLocation() != null ? syntax.getLocation() : loc;
            String where = duplicateParent(syntax);
            return new RunFileException(shown, at == null ? 0 : Math.max(at.getLineNr(), 0),
                    at == null ? 0 : Math.max(at.getColumnNr(), 0),
                    (where.isEmpty() ? "the top level" : where) + ": the key \"" + duplicate + "\" is given twice"
                            + " (JSON readers differ on which one wins); keep the one you mean and delete the other");
        }
        if (syntax != null || !(e instanceof JsonMappingException m)) {
            // not JSON at all: Jackson's first sentence says what it met, and where
            JsonProcessingException p = syntax != null ? syntax : e;
            JsonLocation at = p.getLocation() != null ? p.getLocation() : loc;
            return new RunFileException(shown, at == null ? 0 : Math.max(at.getLineNr(), 0),
                    at == null ? 0 : Math.max(at.getColumnNr(), 0),
                    "not valid JSON: " + firstSentence(p.getOriginalMessage()) + "; expected a JSON object per docs/run.schema.json");
        }
        String path = path(m.getPath());
        Class<?> target = e instanceof MismatchedInputException mi ? mi.getTargetType() : null;
        String expected = target == null ? null : expected(target);
        String found = found(json, m.getPath());
        StringBuilder b = new StringBuilder(path.isEmpty() ? "the top level" : path);
        if (expected != null) {
            b.append(": expected ").append(expected).append(found == null ? "" : ", found " + found);
        } else {
            b.append(": ").append(firstSentence(e.getOriginalMessage()));
        }
        b.append("; fix the value (docs/run.schema.json describes each field)");
        return new RunFileException(shown, line, column, b.toString());
    }

    /** The JSON syntax error behind e (databind wraps the parser's with a field path), or null. */
    private static StreamReadException syntaxError(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StreamReadException s && !(t instanceof MismatchedInputException)) {
                return s;
            }
        }
        return null;
    }

    /** The key STRICT_DUPLICATE_DETECTION refused ("Duplicate field 'tp'"), or null for another syntax error. */
    private static String duplicateKey(StreamReadException s) {
        java.util.regex.Matcher dup = java.util.regex.Pattern.compile("^Duplicate (?:field|Object property) '(.*)'")
                .matcher(s.getOriginalMessage() == null ? "" : s.getOriginalMessage());
        return dup.find() ? dup.group(1) : null;
    }

    /** The object holding the duplicate key, written like {@link #path}: the parser stops inside it. */
    private static String duplicateParent(StreamReadException s) {
        com.fasterxml.jackson.core.JsonParser p = s.getProcessor();
        if (p == null || p.getParsingContext() == null || p.getParsingContext().getParent() == null) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        java.util.Deque<String> steps = new java.util.ArrayDeque<>();
        for (com.fasterxml.jackson.core.JsonStreamContext c = p.getParsingContext().getParent(); c != null && !c.inRoot();
                c = c.getParent()) {
            steps.push(c.inArray() ? "[" + c.getCurrentIndex() + "]" : c.getCurrentName());
        }
        for (String step : steps) {
            b.append(step.startsWith("[") || b.length() == 0 ? "" : ".").append(step);
        }
        return b.toString();
    }

    /** deployment.devices[1], evidence[0].rank: the path as a reader of run.json writes it. */
    static String path(List<JsonMappingException.Reference> refs) {
        StringBuilder b = new StringBuilder();
        for (JsonMappingException.Reference r : refs) {
            if (r.getFieldName() != null) {
                b.append(b.length() == 0 ? "" : ".").append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                b.append('[').append(r.getIndex()).append(']');
            }
        }
        return b.toString();
    }

    private static String expected(Class<?> t) {
        if (t == Integer.class || t == int.class || t == Long.class || t == long.class || t == Short.class) {
            return "a whole number without quotes (a JSON integer, e.g. 2, not \"2\" or 2.0)";
        }
        if (t == Double.class || t == double.class || t == Float.class || t == float.class) {
            return "a number without quotes (e.g. 0.9)";
        }
        if (t == Boolean.class || t == boolean.class) {
            return "true or false without quotes";
        }
        if (t == String.class) {
            return "a string in double quotes";
        }
        if (Collection.class.isAssignableFrom(t) || t.isArray()) {
            return "an array [...]";
        }
        if (Map.class.isAssignableFrom(t) || t.isRecord()) {
            return "an object {...}";
        }
        return null;
    }

    /** What the file holds at that path, e.g. {@code the string "1"}; null when it cannot be read back. */
    private static String found(byte[] json, List<JsonMappingException.Reference> refs) {
        JsonNode n;
        try {
            n = new ObjectMapper().readTree(json);
        } catch (IOException e) {
            return null;
        }
        StringBuilder pointer = new StringBuilder();
        for (JsonMappingException.Reference r : refs) {
            String step = r.getFieldName() != null ? r.getFieldName() : r.getIndex() >= 0 ? Integer.toString(r.getIndex()) : null;
            if (step == null) {
                return null;
            }
            pointer.append('/').append(step.replace("~", "~0").replace("/", "~1"));
        }
        JsonNode v = n.at(JsonPointer.compile(pointer.toString()));
        if (v.isMissingNode()) {
            return null;
        }
        String text = v.toString();
        String shown = text.length() > 40 ? text.substring(0, 37) + "..." : text;
        if (v.isTextual()) {
            return "the string " + shown;
        }
        if (v.isIntegralNumber()) {
            return "the integer " + shown;
        }
        if (v.isNumber()) {
            return "the number " + shown;
        }
        if (v.isBoolean()) {
            return shown;
        }
        if (v.isNull()) {
            return "null";
        }
        if (v.isArray()) {
            return "an array " + shown;
        }
        return "an object " + shown;
    }

    private static String firstSentence(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        // "[Source: REDACTED (`StreamReadFeature...` disabled); line: 1, column: 1]" -> "line 1, column 1"
        return (nl < 0 ? s : s.substring(0, nl)).replaceAll("\\[Source: .*?; line: (\\d+), column: (\\d+)\\]", "line $1, column $2")
                .strip();
    }
}
