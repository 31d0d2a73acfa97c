package io.hbmledger.weights;

import io.hbmledger.testing.Corpus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Model directories made of symbolic links to corpus files: read in place, never copied. */
final class CorpusCheckpoints {

    private CorpusCheckpoints() {
    }

    static Path dir(Path tmp, String name, String config, String index) throws IOException {
        Path d = Files.createDirectories(tmp.resolve(name));
        Files.createSymbolicLink(d.resolve("config.json"), Corpus.file(config));
        if (index != null) {
            Files.createSymbolicLink(d.resolve("model.safetensors.index.json"), Corpus.file(index));
        }
        return d;
    }

    static Path qwen14b(Path tmp) throws IOException {
        return dir(tmp, "sakura", "model-config/sakura-14b-qwen2.5.config.json",
                "safetensors/sakura-14b-qwen2.5.model.safetensors.index.json");
    }

    static Path llama70b(Path tmp) throws IOException {
        return dir(tmp, "llama", "model-config/reflection-llama-3.1-70b.config.json",
                "safetensors/reflection-llama-3.1-70b.model.safetensors.index.json");
    }

    static Path mixtral(Path tmp) throws IOException {
        return dir(tmp, "mixtral", "model-config/wizardlm-2-8x22b_mixtral.config.json",
                "safetensors/wizardlm-2-8x22b_mixtral.model.safetensors.index.json");
    }

    static Path deepseekR1(Path tmp) throws IOException {
        return dir(tmp, "r1", "model-config/deepseek-r1_DeepseekV3ForCausalLM.config.json", null);
    }
}
