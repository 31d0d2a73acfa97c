package io.hbmledger.evidence.paste;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.TextLines;
import io.hbmledger.testing.Cases;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The NPUs a container start command gives its container (docker run --device /dev/davinciN). */
class ContainerCommandTest {

    private static final String CASE = "ascend-8809-910b4-32gb-vllm-plus-embedding-service";

    private static List<Observation> read(String text) {
        List<String> lines = TextLines.split(text);
        return ContainerCommand.read(lines, 1, lines.size());
    }

    /**
     * vllm-ascend #8809's resolution: its docker run (lines 7-31, as posted) gives the vLLM image
     * davinci0 to davinci7 on lines 12-19; the management devices on lines 20-22 are no cards.
     */
    @Test
    void theEightCardsOfTheResolutionsDockerRun() throws Exception {
        List<String> lines = TextLines.split(Files.readString(Cases.file(CASE, "resolution-comment-excerpt.md")));
        List<Observation> cards = ContainerCommand.read(lines, 7, 31);
        assertThat(cards).extracting(Observation::value).containsExactly(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0);
        assertThat(cards).extracting(Observation::line).containsExactly(12, 13, 14, 15, 16, 17, 18, 19);
        assertThat(cards.get(0).text()).isEqualTo("--device /dev/davinci0");
        assertThat(cards).allSatisfy(o -> {
            assertThat(o.quantity()).isEqualTo(Quantity.CONTAINER_DEVICE);
            // the image is quay.io/ascend/vllm-ascend:v0.18.0rc1 (line 31)
            assertThat(o.context().component()).isEqualTo("vLLM");
        });
        // the run.sh block (lines 37-44) starts no container
        assertThat(ContainerCommand.read(lines, 37, 44)).isEmpty();
    }

    /** The forms of the Ascend guides: "--device=/dev/davinci1:/dev/davinci1" (300V), "--device=/dev/davinci0" (MindIE). */
    @Test
    void flagsWithEqualsAndAHostToContainerMapping() {
        List<Observation> cards = read("docker run -itd --ipc=host \\\n--device=/dev/davinci1:/dev/davinci1 \\\n"
                + "--device=/dev/davinci_manager \\\n--device=/dev/devmm_svm \\\nswr.cn-south-1.myhuaweicloud.com/mis-tei:7.3.0 bash\n");
        assertThat(cards).extracting(Observation::value).containsExactly(1.0);
        assertThat(cards.get(0).text()).isEqualTo("--device=/dev/davinci1");
        assertThat(cards.get(0).context().component()).isEqualTo("MIS-TEI (text-embeddings-inference)");
    }

    /**
     * The quick start's "--device $DEVICE" names no card; a command naming vllm and another program
     * is nobody's; flags after the command's last line are another command's.
     */
    @Test
    void whatGivesNoCardOrNoOwner() {
        assertThat(read("docker run --rm \\\n--device $DEVICE \\\n--device /dev/davinci_manager \\\n-it $IMAGE bash\n")).isEmpty();
        List<Observation> both = read("docker run --device /dev/davinci2 -v /data/ollama:/models vllm-ascend:latest\n");
        assertThat(both).extracting(Observation::value).containsExactly(2.0);
        assertThat(both.get(0).context().component()).isNull();
        assertThat(read("docker ps\n--device /dev/davinci0\n")).isEmpty();
        assertThat(read("docker run --device /dev/davinci3 img\n--device /dev/davinci4\n")).extracting(Observation::value)
                .containsExactly(3.0);
    }

    /** Ascend Docker Runtime's "docker run -it -e ASCEND_VISIBLE_DEVICES=0 image-name:tag" (its guide), with ranges. */
    @Test
    void theAscendDockerRuntimesVariable() {
        List<Observation> cards = read("docker run -it -e ASCEND_VISIBLE_DEVICES=0-2,5 quay.io/ascend/vllm-ascend:v0.9.1 bash\n");
        assertThat(cards).extracting(Observation::value).containsExactly(0.0, 1.0, 2.0, 5.0);
        assertThat(cards.get(0).text()).isEqualTo("-e ASCEND_VISIBLE_DEVICES=0-2,5");
        assertThat(cards.get(0).context().component()).isEqualTo("vLLM");
        assertThat(read("docker run -e ASCEND_VISIBLE_DEVICES=3-1 img\n")).isEmpty();
    }

    /**
     * The same docker run saved as a script of its own (the resolution's lines 7-31, no fence): the
     * whole text is one container-command part, not also skipped prose.
     */
    @Test
    void anUnfencedScriptIsOneContainerCommand(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
        List<String> lines = TextLines.split(Files.readString(Cases.file(CASE, "resolution-comment-excerpt.md")));
        java.nio.file.Path script = Files.writeString(tmp.resolve("docker-run.sh"), String.join("\n", lines.subList(6, 31)) + "\n");
        io.hbmledger.evidence.EvidenceFile f = io.hbmledger.evidence.EvidenceReaders.all().read(script, "docker-run.sh");
        assertThat(f.parts()).extracting(p -> p.firstLine() + "-" + p.lastLine() + " " + p.format().contractName())
                .containsExactly("1-25 container-command");
        assertThat(f.observations()).extracting(Observation::line).containsExactly(6, 7, 8, 9, 10, 11, 12, 13);
    }
}
