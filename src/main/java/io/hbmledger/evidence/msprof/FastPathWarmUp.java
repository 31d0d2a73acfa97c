package io.hbmledger.evidence.msprof;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Runs the fast path (the hot loop {@link LaneLoop#rows} and {@link FusedLineParser#line}) over
 * made-up rows of every sampled layout that take every branch, on throwaway tallies, once per
 * JVM before the first large file is read. The JIT compiles a branch that its profile never saw
 * taken as a trap, and a trap that fires later throws the compiled reader away and compiles it
 * again (seen: eight recompilations and seconds in the interpreter on a 1 GiB file, issue 17).
 * The profile is the method's, shared by every file and layout, so the first file read (e.g.
 * npu_mem, integers only, before npu_module_mem) must not be the one that decides it; and real
 * exports are grouped by series, so their first million rows are often the zeros of one module.
 * The made-up rows come in runs of one series broken by a few odd rows (zero and non-zero
 * amounts, with and without decimals, empty cells, quotes, -1, long numbers and names, NPU:
 * prefixes, CRLF), the layouts in turn, now and then cut short as at the end of a read buffer,
 * with an instant and a window in the middle of the made-up times.
 */
final class FastPathWarmUp {

    /** The header of each sampled layout the fast path reads, msprof's and torch_npu's. */
    private static final String[] HEADERS = {
        "Device_id,Component,Timestamp(us),Total Reserved(KB),Device",
        "Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)",
        "Component,Timestamp(us),Total Reserved(MB),Device",
        "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type",
    };

    private static final String[] SKIPPED = {"x", "NPU:0", "897357296", "", "281473422065216", "1.5"};
    private static final String[] SKIPPED_ODD = {"a\"b", "\"1,5\""};
    private static final String[] DEVICES = {"0", "NPU:3", "12", "0", "NPU:1", "NPU:15", "1234567", "15"};
    private static final String[] DEVICES_ODD = {"host", "", "npu:2", "NPU:", "1234567"};
    private static final String[] EVENTS = {"app", "device", "APP", "other"};
    private static final String[] GROUPS = {"APP", "HCCL", "ASCENDCKERNEL", "SLOG", "MDCPERCEPTION",
        "ASCENDCKERNEL123", "ASCENDCKERNEL1234", "ASCENDCKERNEL12345678", "PTA+GE", "GE", "TSDUMP", "\"APP\"", "A B"};
    private static final String[] TIMES = {"1736408883657146.822\t", "1695115378653323.5", "1736408883657146",
        "17364088836571.8\t", "12345678", "1736408883657146.", "1736408883657146.822"};
    private static final String[] TIMES_ODD = {"12345678.123456789\t", "17364088836571466", "1.2.3", "\t5", "",
        "1736408883657146.822 ", "9999999999999999", "9999999999999999.999"};
    private static final String[] AMOUNTS = {"0.0", "413760", "404.0625", "0", "92.234375", "", "1.5",
        "2109.6015625", "0.0", "413760", "54941608", "123456789012", "5.", ".5", "12345678.5", "1486848"};
    private static final String[] AMOUNTS_ODD = {"-1", "0.123456789", ".", "1e3", "12345678901234567890", " 5",
        "999999999999999", "\"5\"", "99999999999999999"};

    private static final int ROUNDS = Integer.getInteger("hbmledger.warmup.rounds", 6);
    private static final int ROWS = Integer.getInteger("hbmledger.warmup.rows", 1500);

    private FastPathWarmUp() {
    }

    /** Warms the fast path up unless this JVM already did (the first call waits for it, the others do not). */
    static void beforeLargeRead() {
        Once.done();
    }

    /** The JVM initialises a class once, whatever the threads: its initialiser is the warm-up. */
    private static final class Once {
        static {
            Instants instants = Instants.of(MsprofPass.of(java.util.Map.of("warm", 1_736_408_883_657_146L))
                    .withWindowFrom("warm"));
            List<FusedLineParser> parsers = new ArrayList<>();
            List<byte[]> texts = new ArrayList<>();
            for (String header : HEADERS) {
                CsvLayout layout = CsvLayout.parse(header).orElseThrow();
                FusedLineParser f = FusedLineParser.forLayout(layout, new CsvRowHandler(layout, new Tally(instants), -1));
                parsers.add(f);
                byte[] text = rows(f, layout.table() == MsprofTable.NPU_MEM).getBytes(StandardCharsets.US_ASCII);
                texts.add(Arrays.copyOf(text, text.length + FusedLineParser.SLACK));
            }
            // the layouts in turn, so that no compilation sees one layout only
            for (int round = 0; round < ROUNDS; round++) {
                for (int i = 0; i < parsers.size(); i++) {
                    read(parsers.get(i), texts.get(i), texts.get(i).length - FusedLineParser.SLACK, round);
                }
            }
        }

        static void done() {
            // the work is in the initialiser
        }
    }

    /** Reads the rows as {@link CsvScanner} does, the hot loop first; now and then with the buffer cut short. */
    private static void read(FusedLineParser f, byte[] b, int end, int round) {
        int p = 0;
        long row = 0;
        int stops = round;
        while (p < end) {
            if (++stops % 8 == 0) {
                // cut short, as at the end of a read buffer: the "need more" exits
                p = f.laneRows(b, p, Math.min(end, p + 1 + (stops * 31 + (int) row) % 160), row + 1);
                row += f.laneRows();
            }
            p = f.laneRows(b, p, end, row + 1);
            row += f.laneRows();
            if (p >= end) {
                break;
            }
            int next = f.line(b, p, end, ++row);
            if (next < 0) {
                int nl = p;
                while (nl < end && b[nl] != '\n') {
                    nl++;
                }
                next = nl + 1;
            }
            p = next;
        }
    }

    /**
     * Runs of 10 to 50 rows of one series: mostly the row before with other digits (the hot
     * loop's template, the same or another amount), some the row before as it is or new cells;
     * about one row in 30 has an odd cell. Few rows leave the hot loop, so {@code line} stays
     * cold (real rows rarely reach it, and it is not worth its long compilation).
     */
    private static String rows(FusedLineParser f, boolean events) {
        StringBuilder sb = new StringBuilder();
        Random r = new Random(17);
        int fields = f.fieldCount();
        String[] row = new String[fields];
        int runLeft = 0;
        for (int v = 0; v < ROWS; v++) {
            boolean newRun = runLeft-- <= 0;
            if (newRun) {
                runLeft = 10 + r.nextInt(40);
            }
            int choice = r.nextInt(16);
            int odd = r.nextInt(30) == 0 ? r.nextInt(fields) : -1;
            for (int c = 0; c < fields; c++) {
                boolean lane = c < f.laneColumn();
                if (row[c] == null || lane && newRun || !lane && (choice == 0 || c == odd)) {
                    row[c] = pick(r, f.kind(c), events, lane ? newRun && r.nextInt(6) == 0 : c == odd);
                } else if (!lane && choice < 11) {
                    row[c] = otherDigits(r, row[c]);
                }
            }
            sb.append(String.join(",", row));
            if (r.nextInt(200) == 0) {
                sb.append(",extra");
            }
            sb.append(r.nextInt(3) == 0 ? "\r\n" : "\n");
        }
        return sb.toString();
    }

    /** The same cell with some of its digits changed: the same shape. */
    private static String otherDigits(Random r, String cell) {
        char[] c = cell.toCharArray();
        for (int i = 0; i < c.length; i++) {
            if (c[i] >= '0' && c[i] <= '9' && r.nextBoolean()) {
                c[i] = (char) ('0' + r.nextInt(10));
            }
        }
        return new String(c);
    }

    private static String pick(Random r, byte kind, boolean events, boolean odd) {
        String[] choices = switch (kind) {
            case LaneLoop.SKIP -> odd ? SKIPPED_ODD : SKIPPED;
            case LaneLoop.DEVICE -> odd ? DEVICES_ODD : DEVICES;
            case LaneLoop.TS -> odd ? TIMES_ODD : TIMES;
            case 2 -> events ? EVENTS : GROUPS;
            default -> odd ? AMOUNTS_ODD : AMOUNTS;
        };
        return choices[r.nextInt(choices.length)];
    }
}
