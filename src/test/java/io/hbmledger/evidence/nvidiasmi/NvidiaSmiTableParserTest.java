package io.hbmledger.evidence.nvidiasmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.smitable.SmiParse;
import io.hbmledger.testing.Corpus;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/** nvidia-smi tables. nvidia-smi writes MiB: bytes = n x 1,048,576 (worked out in comments). */
class NvidiaSmiTableParserTest {

    private static final long MIB = 1L << 20;

    static SmiParse corpus(String name) throws IOException {
        return NvidiaSmiTableParser.parse(Files.readString(Corpus.file("nvidia-smi/" + name)));
    }

    static List<Observation> all(SmiParse p, String quantity, String device) {
        return p.observations().stream()
                .filter(o -> o.quantity().contractName().equals(quantity) && (device == null || Objects.equals(o.context().device(), device)))
                .toList();
    }

    static Observation one(SmiParse p, String quantity, String device) {
        List<Observation> found = all(p, quantity, device);
        assertThat(found).as(quantity + " on " + device).hasSize(1);
        return found.get(0);
    }

    @Test
    void readsWindowsWddmTableQuotedInMarkdown() throws IOException {
        SmiParse p = corpus("localgpt-14_windows_wddm_quoted.txt");
        // line 10: "> | 37%   63C    P0    65W / 250W|   1585MiB / 11264MiB |"
        Observation used = one(p, "fb_used", "gpu:0");
        assertThat(used.bytes()).isEqualTo(1_661_992_960L); // 1585 x 1048576
        assertThat(used.line()).isEqualTo(10);
        assertThat(used.text()).isEqualTo("1585MiB");
        assertThat(one(p, "fb_total", "gpu:0").bytes()).isEqualTo(11_811_160_064L); // 11264 x 1048576
        assertThat(all(p, "process_memory", null)).isEmpty(); // process table cut after its header
        assertThat(p.warnings()).isEmpty();
    }

    @Test
    void readsMigSlicesAndIgnoresBar1() throws IOException {
        SmiParse p = corpus("nvitop-pr8_mig_devices_table_partial.txt");
        // line 8: "|  1    3   0   0  |  14366MiB / 19968MiB |"; line 9 is BAR1 "4MiB / 32767MiB"
        Observation used = one(p, "fb_used", "gpu:1/mig:0");
        assertThat(used.bytes()).isEqualTo(14366 * MIB);
        assertThat(used.line()).isEqualTo(8);
        assertThat(one(p, "fb_total", "gpu:1/mig:0").bytes()).isEqualTo(19968 * MIB);
        assertThat(one(p, "fb_used", "gpu:1/mig:1").bytes()).isEqualTo(9880 * MIB);
        assertThat(one(p, "fb_used", "gpu:1/mig:2").bytes()).isEqualTo(13 * MIB);
        assertThat(all(p, "fb_total", null)).extracting(Observation::bytes).containsOnly(19968 * MIB);
        assertThat(all(p, "fb_used", "gpu:1")).isEmpty();
        assertThat(p.warnings()).isEmpty();
    }

    @Test
    void readsDriver580ZeroUsedAsARealZero() throws IOException {
        SmiParse p = corpus("vllm-55169_H100_580_driver_2gpu_partial.txt");
        // "|       0MiB /  81559MiB |": written 0MiB, so a measured 0
        Observation used = one(p, "fb_used", "gpu:1");
        assertThat(used.bytes()).isZero();
        assertThat(used.text()).isEqualTo("0MiB");
        assertThat(used.line()).isEqualTo(14);
        assertThat(one(p, "fb_total", "gpu:0").bytes()).isEqualTo(81559 * MIB);
        assertThat(all(p, "process_memory", null)).isEmpty();
    }

    static final String LINUX_535 = String.join("\n",
            "Tue Nov 28 10:00:00 2023",
            "+---------------------------------------------------------------------------------------+",
            "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |",
            "|-----------------------------------------+----------------------+----------------------+",
            "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
            "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
            "|                                         |                      |               MIG M. |",
            "|=========================================+======================+======================|",
            "|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |",
            "| N/A   33C    P0              62W / 400W |  72135MiB / 81920MiB |      0%      Default |",
            "|                                         |                      |             Disabled |",
            "+-----------------------------------------+----------------------+----------------------+",
            "",
            "+---------------------------------------------------------------------------------------+",
            "| Processes:                                                                            |",
            "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |",
            "|        ID   ID                                                             Usage      |",
            "|=======================================================================================|",
            "|    0   N/A  N/A   1440043      C   python3 -m vllm.entrypoints.openai        72122MiB |",
            "|    0   N/A  N/A      1234    C+G   C:\\Program Files\\app.exe                      N/A |",
            "+---------------------------------------------------------------------------------------+",
            "");

    @Test
    void readsProcessesWithSpacesInNamesAndNaMemoryAsAbsent() {
        SmiParse p = NvidiaSmiTableParser.parse(LINUX_535);
        assertThat(one(p, "fb_used", "gpu:0").bytes()).isEqualTo(72135 * MIB);
        Observation proc = one(p, "process_memory", "gpu:0");
        assertThat(proc.bytes()).isEqualTo(72122 * MIB);
        assertThat(proc.context().pid()).isEqualTo(1440043L);
        assertThat(proc.context().processName()).isEqualTo("python3 -m vllm.entrypoints.openai");
        assertThat(proc.line()).isEqualTo(19);
        // line 20: WDDM-style N/A per-process memory: absent, with a warning naming the line
        assertThat(p.warnings()).singleElement().asString().startsWith("line 20:").contains("N/A");
    }

    @Test
    void readsOldDriverLayoutWithoutGiCiColumns() {
        String text = String.join("\r\n",
                "+-----------------------------------------------------------------------------+",
                "| NVIDIA-SMI 384.59                 Driver Version: 384.59                    |",
                "|-------------------------------+----------------------+----------------------+",
                "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
                "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |",
                "|===============================+======================+======================|",
                "|   0  GeForce GTX 750 Ti  Off  | 00000000:01:00.0  On |                  N/A |",
                "| 40%   48C    P0     2W /  38W |    213MiB /  1995MiB |      0%      Default |",
                "+-------------------------------+----------------------+----------------------+",
                "",
                "+-----------------------------------------------------------------------------+",
                "| Processes:                                                       GPU Memory |",
                "|  GPU       PID   Type   Process name                             Usage      |",
                "|=============================================================================|",
                "|    0      1098      G   /usr/lib/xorg/Xorg                           133MiB |",
                "|    0      2144      G   compiz                                        78MiB |",
                "+-----------------------------------------------------------------------------+");
        SmiParse p = NvidiaSmiTableParser.parse(text);
        assertThat(one(p, "fb_used", "gpu:0").bytes()).isEqualTo(213 * MIB);
        assertThat(one(p, "fb_total", "gpu:0").bytes()).isEqualTo(1995 * MIB);
        List<Observation> procs = all(p, "process_memory", "gpu:0");
        assertThat(procs).extracting(x -> x.context().pid()).containsExactly(1098L, 2144L);
        assertThat(procs).extracting(x -> x.context().processName()).containsExactly("/usr/lib/xorg/Xorg", "compiz");
        assertThat(procs).extracting(Observation::bytes).containsExactly(133 * MIB, 78 * MIB);
        assertThat(p.warnings()).isEmpty();
    }

    @Test
    void migProcessesLandOnTheirSlice() throws IOException {
        String mig = Files.readString(Corpus.file("nvidia-smi/nvitop-pr8_mig_devices_table_partial.txt"));
        String text = mig + String.join("\n",
                "",
                "+---------------------------------------------------------------------------------------+",
                "| Processes:                                                                            |",
                "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |",
                "|        ID   ID                                                             Usage      |",
                "|=======================================================================================|",
                "|    1    5    0     12345      C   python                                     9850MiB |",
                "|    1    9    0     12346      C   python                                       10MiB |",
                "+---------------------------------------------------------------------------------------+");
        SmiParse p = NvidiaSmiTableParser.parse(text);
        // GI 5 / CI 0 of GPU 1 is MIG dev 1 in the MIG devices table (line 11)
        Observation onSlice = one(p, "process_memory", "gpu:1/mig:1");
        assertThat(onSlice.context().pid()).isEqualTo(12345L);
        assertThat(onSlice.bytes()).isEqualTo(9850 * MIB);
        // GI 9 is not in the table: the process is known to be on GPU 1 only
        assertThat(one(p, "process_memory", "gpu:1").context().pid()).isEqualTo(12346L);
    }

    @Test
    void blockCutBeforeItsMemoryRowWarns() {
        String text = LINUX_535.lines().limit(9).reduce("", (a, b) -> a + b + "\n");
        SmiParse p = NvidiaSmiTableParser.parse(text);
        assertThat(p.observations()).isEmpty();
        assertThat(p.warnings()).singleElement().asString().startsWith("line 9:").contains("gpu:0").contains("cut off");
    }

    @Test
    void rowCutInsideTheMemoryCellIsNotRead() {
        String text = LINUX_535.lines().limit(9).reduce("", (a, b) -> a + b + "\n")
                + "| N/A   33C    P0              62W / 400W |  72135MiB / 819";
        SmiParse p = NvidiaSmiTableParser.parse(text);
        assertThat(p.observations()).isEmpty();
        assertThat(p.warnings()).singleElement().asString().startsWith("line 10:").contains("cut off");
    }

    @Test
    void migEnabledGpuWithoutSlicesAndSharedMemoryHeader() {
        // driver 550+ layout: "Shared Memory-Usage" in the MIG header, "No MIG devices found"
        String text = String.join("\n",
                "+-----------------------------------------------------------------------------------------+",
                "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
                "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
                "|                                         |                        |               MIG M. |",
                "|=========================================+========================+======================|",
                "|   0  NVIDIA A100 80GB PCIe          On  |   00000000:B6:00.0 Off |                   On |",
                "| N/A   54C    P0             90W /  300W |     249MiB /  81920MiB |     N/A      Default |",
                "|                                         |                        |              Enabled |",
                "+-----------------------------------------+------------------------+----------------------+",
                "",
                "+-----------------------------------------------------------------------------------------+",
                "| MIG devices:                                                                            |",
                "+------------------+----------------------------------+-----------+-----------------------+",
                "| GPU  GI  CI  MIG |              Shared Memory-Usage |        Vol|        Shared         |",
                "|      ID  ID  Dev |                Shared BAR1-Usage | SM     Unc| CE ENC  DEC  OFA  JPG |",
                "|                  |                                  |        ECC|                       |",
                "|==================+==================================+===========+=======================|",
                "|  0    2   0   0  |             142MiB / 20096MiB    | 56      0 |  4   0    2    0    0 |",
                "|                  |               0MiB / 12211MiB    |           |                       |",
                "+------------------+----------------------------------+-----------+-----------------------+",
                "",
                "+-----------------------------------------------------------------------------------------+",
                "| MIG devices:                                                                            |",
                "+------------------+----------------------------------+-----------+-----------------------+",
                "| GPU  GI  CI  MIG |                     Memory-Usage |        Vol|        Shared         |",
                "|      ID  ID  Dev |                       BAR1-Usage | SM     Unc| CE ENC  DEC  OFA  JPG |",
                "|                  |                                  |        ECC|                       |",
                "|==================+==================================+===========+=======================|",
                "|  No MIG devices found                                                                   |",
                "+-----------------------------------------------------------------------------------------+");
        SmiParse p = NvidiaSmiTableParser.parse(text);
        assertThat(one(p, "fb_used", "gpu:0").bytes()).isEqualTo(249 * MIB);
        assertThat(one(p, "fb_total", "gpu:0").bytes()).isEqualTo(81920 * MIB);
        Observation slice = one(p, "fb_used", "gpu:0/mig:0");
        assertThat(slice.bytes()).isEqualTo(142 * MIB);
        assertThat(slice.line()).isEqualTo(18);
        assertThat(one(p, "fb_total", "gpu:0/mig:0").bytes()).isEqualTo(20096 * MIB); // not the BAR1 12211
        assertThat(p.observations()).hasSize(4);
        assertThat(p.warnings()).isEmpty();
    }
}
