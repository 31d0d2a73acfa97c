package io.hbmledger.evidence;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Serving programs other than vLLM that hold accelerator memory of their own when they share a
 * card with it: embedding and inference servers as people name them in prose ("mis-tei" images,
 * "TEI", "Ollama") and as process tables list them ({@code text-embeddings-router},
 * {@code tritonserver}, {@code ollama}). Each is matched as a whole word; the name is kept as
 * written (an image tag such as {@code mis-tei:7.2.RC1-800I-A2-aarch64} included). Pure.
 */
public final class ServingPrograms {

    /**
     * A serving program named in text.
     *
     * @param program the program's usual name, e.g. "TEI (text-embeddings-inference)"
     * @param written the name as the text writes it, an image tag or a path included
     * @param column 0-based place in the line
     */
    public record Named(String program, String written, int column) {
    }

    /**
     * @param shortName how the findings name it in a list ("MIS-TEI")
     * @param name its usual name, the short one with what it stands for ("MIS-TEI (text-embeddings-inference)")
     */
    private record Program(String shortName, String name, Pattern pattern) {
    }

    /** A name followed by what the text glues to it: an image tag, a version, a path's rest. */
    private static final String TAIL = "(?:[:@/][\\w.\\-:/]*[\\w])?";

    private static final List<Program> PROGRAMS = List.of(
            program("MIS-TEI", "text-embeddings-inference", "mis-tei", null),
            program("TEI", "text-embeddings-inference", "text-embeddings-(?:inference|router)", "TEI"),
            program("TGI", "text-generation-inference", "text-generation-(?:inference|launcher|server)", "TGI"),
            program("Ollama", null, "ollama", null),
            program("SGLang", null, "sglang", null),
            program("Triton Inference Server", null, "tritonserver|triton[- ]inference[- ]server", null),
            program("MindIE", null, "mindie(?:[-_][a-z]+)*", null),
            program("LMDeploy", null, "lmdeploy", null),
            program("llama.cpp", null, "llama\\.cpp|llama-server", null),
            program("Xinference", null, "xinference", null),
            program("TensorRT-LLM", null, "tensorrt[-_]llm|trtllm-serve", null),
            program("ComfyUI", null, "comfyui", null));

    private ServingPrograms() {
    }

    /**
     * @param shortName how the program is named in a list
     * @param standsFor what the short name stands for, or null when it says it all
     * @param anyCase the program's names, matched in any case
     * @param acronym its acronym, matched in capitals only ("TEI", not the "tei" of other words), or null
     */
    private static Program program(String shortName, String standsFor, String anyCase, String acronym) {
        String names = "(?i:" + anyCase + ")" + (acronym == null ? "" : "|" + acronym);
        return new Program(shortName, standsFor == null ? shortName : shortName + " (" + standsFor + ")", Pattern.compile("(?<![\\w.\\-])(?:" + names + ")" + TAIL + "(?![\\w\\-])"));
    }

    /** The serving programs a line names, each place once, in the order written. */
    public static List<Named> in(String line) {
        List<Named> out = new ArrayList<>();
        for (Program p : PROGRAMS) {
            Matcher m = p.pattern().matcher(line);
            // MIS-TEI before TEI: one place is one program
            while (m.find()) {
                int at = m.start();
                if (out.stream().noneMatch(n -> overlaps(n, at))) {
                    out.add(new Named(p.name(), m.group(), at));
                }
            }
        }
        out.sort(java.util.Comparator.comparingInt(Named::column));
        return out;
    }

    /**
     * The short name of a program by its usual name ({@link Named#program}): "MIS-TEI" for
     * "MIS-TEI (text-embeddings-inference)"; a name this list does not hold is its own short name.
     */
    public static String shortName(String program) {
        return PROGRAMS.stream().filter(p -> p.name().equals(program)).map(Program::shortName).findFirst().orElse(program);
    }

    /** The serving program a process's name is, when it is one (a path's last part counts). */
    public static Optional<Named> process(String name) {
        if (name == null || name.isBlank()) {
            return Optional.empty();
        }
        List<Named> named = in(name.strip());
        return named.isEmpty() ? Optional.empty() : Optional.of(named.get(0));
    }

    private static boolean overlaps(Named n, int at) {
        return at >= n.column() && at < n.column() + n.written().length();
    }
}
