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

    private record Program(String name, Pattern pattern) {
    }

    /** A name followed by what the text glues to it: an image tag, a version, a path's rest. */
    private static final String TAIL = "(?:[:@/][\\w.\\-:/]*[\\w])?";

    private static final List<Program> PROGRAMS = List.of(
            program("MIS-TEI (text-embeddings-inference)", "mis-tei", null),
            program("TEI (text-embeddings-inference)", "text-embeddings-(?:inference|router)", "TEI"),
            program("TGI (text-generation-inference)", "text-generation-(?:inference|launcher|server)", "TGI"),
            program("Ollama", "ollama", null),
            program("SGLang", "sglang", null),
            program("Triton Inference Server", "tritonserver|triton[- ]inference[- ]server", null),
            program("MindIE", "mindie(?:[-_][a-z]+)*", null),
            program("LMDeploy", "lmdeploy", null),
            program("llama.cpp", "llama\\.cpp|llama-server", null),
            program("Xinference", "xinference", null),
            program("TensorRT-LLM", "tensorrt[-_]llm|trtllm-serve", null),
            program("ComfyUI", "comfyui", null));

    private ServingPrograms() {
    }

    /**
     * @param anyCase the program's names, matched in any case
     * @param acronym its acronym, matched in capitals only ("TEI", not the "tei" of other words), or null
     */
    private static Program program(String name, String anyCase, String acronym) {
        String names = "(?i:" + anyCase + ")" + (acronym == null ? "" : "|" + acronym);
        return new Program(name, Pattern.compile("(?<![\\w.\\-])(?:" + names + ")" + TAIL + "(?![\\w\\-])"));
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
