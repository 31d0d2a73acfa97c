package io.hbmledger.evidence.safetensors;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.evidence.Quote;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a tree read of a safetensors header hides: a key given twice (the tree keeps the last, as
 * serde's map in the safetensors library does) and content after the header object (ignored by a
 * tree read; the space padding writers add is not content).
 */
final class HeaderShape {

    private HeaderShape() {
    }

    /** Warnings about {@code json}, a header already known to be one JSON object; empty when it is plain. */
    static List<String> oddities(ObjectMapper mapper, String json) {
        List<String> warnings = new ArrayList<>();
        try (JsonParser p = mapper.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return warnings;
            }
            Set<String> seen = new HashSet<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                if (!seen.add(name)) {
                    warnings.add("tensor name " + Quote.doubleQuoted(name) + " appears more than once in the header (line "
                            + p.currentLocation().getLineNr() + "); only the last entry is counted, as the safetensors library does");
                }
                p.nextToken();
                p.skipChildren();
            }
            long end = p.currentLocation().getCharOffset();
            JsonToken after = p.nextToken();
            if (after != null) {
                warnings.add("the header holds more JSON after its object (from character " + end + "); ignored: a writer"
                        + " pads a header with spaces only, so this file may be damaged");
            }
        } catch (IOException e) {
            warnings.add("the header holds something after its object that is not JSON; ignored: a writer pads a header"
                    + " with spaces only, so this file may be damaged");
        }
        return warnings;
    }
}
