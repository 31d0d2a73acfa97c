import io.hbmledger.collect.ssh.SshHost;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** bench/ssh-copy: one timed SshHost.fetchDirectory (the collector's copy), best of N runs, seconds on stdout. */
public class SshCopyBench {
    public static void main(String[] a) throws Exception {
        // args: target identity known_hosts remote_dir local_dir runs
        double best = Double.MAX_VALUE;
        for (int i = 0; i < Integer.parseInt(a[5]); i++) {
            new ProcessBuilder("rm", "-rf", a[4]).inheritIO().start().waitFor();
            try (SshHost h = SshHost.connect(a[0], Path.of(a[1]), Path.of(a[2]), Map.of(), Duration.ofSeconds(20), true)) {
                long t = System.nanoTime();
                h.fetchDirectory(a[3], Path.of(a[4]), Duration.ofSeconds(60));
                best = Math.min(best, (System.nanoTime() - t) / 1e9);
            }
        }
        System.out.printf("%.3f%n", best);
    }
}
