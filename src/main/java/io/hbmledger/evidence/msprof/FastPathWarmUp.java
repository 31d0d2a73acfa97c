package io.hbmledger.evidence.msprof;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Runs the fast path ({@link FusedLineParser#line} and the hot loop {@link LaneLoop#rows}) over
 * made-up rows of every sampled layout that take every branch, on throwaway tallies, once per
 * JVM before the first large file is read. The JIT compiles a branch that its profile never saw
 * taken as a trap, and a trap that fires later throws the compiled reader away (seen: eight
 * recompilations and seconds in the interpreter on a 1 GiB file, issue 17); the profile is the
 * method's, shared by every file and layout, so the first file read (e.g. npu_mem before
 * npu_module_mem) must not be the one that decides it. Real exports are grouped by series, so
 * the first million rows are often the zeros of one module; the made-up rows come in runs of one
 * series (the hot loop and its template) broken by odd rows (zero and non-zero amounts, with and
 * without decimals, empty cells, quotes, -1, long numbers and names, NPU: prefixes, CRLF), and
 * each run is also offered cut short, as at the end of a read buffer, with an instant and a
 * window in the middle of the made-up times. Only worth its milliseconds before large files.
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
    private static final String[] AMOUNTS_ODD = {"-1", "0.123456789", ".", "1e3", "12345678901234567890", " 5", "999999999999999",
        "\"5\"", "99999999999999999"};

    private static final int ROUNDS = Integer.getInteger("hbmledger.warmup.rounds", 40);

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
            for (String header : HEADERS) {
                run(CsvLayout.parse(header).orElseThrow(), instants);
            }
        }

        static void done() {
            // the work is in the initialiser
        }
    }

    private static void run(CsvLayout layout, Instants instants) {
        Tally tally = new Tally(instants);
        CsvRowHandler handler = new CsvRowHandler(layout, tally, -1);
        FusedLineParser f = FusedLineParser.forLayout(layout, handler);
        if (f == null) {
            return;
        }
        byte[] text = rows(f, layout.table() == MsprofTable.NPU_MEM).getBytes(StandardCharsets.US_ASCII);
        int end = text.length;
        byte[] b = Arrays.copyOf(text, end + FusedLineParser.SLACK);
        for (int round = 0; round < ROUNDS; round++) {
            int p = 0;
            long row = 0;
            while (p < end) {
                // cut short, as at the end of a read buffer: takes every "need more" exit
                int cut = Math.min(end, p + 1 + (round * 31 + (int) row) % 120);
                p = f.laneRows(b, p, cut, row + 1);
                row += f.laneRows();
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
    }

    /**
     * Runs of 1 to 24 rows of one series, each row the one before it (the hot loop's template),
     * the same with other digits, or new cells; about one row in five has an odd cell.
     */
    private static String rows(FusedLineParser f, boolean events) {
        StringBuilder sb = new StringBuilder();
        java.util.Random r = new java.util.Random(17);
        int fields = f.fieldCount();
        String[] row = new String[fields];
        int runLeft = 0;
        for (int v = 0; v < 800; v++) {
            boolean newRun = runLeft-- <= 0;
            if (newRun) {
                runLeft = r.nextInt(24);
            }
            int choice = r.nextInt(4);
            for (int c = 0; c < fields; c++) {
                boolean lane = c < f.laneColumn();
                if (row[c] == null || lane && newRun || !lane && choice == 0) {
                    row[c] = pick(r, f.kind(c), events, r.nextInt(lane ? 6 : 5) == 0);
                } else if (!lane && choice == 1) {
                    row[c] = otherDigits(r, row[c]);
                }
            }
            sb.append(String.join(",", row));
            if (r.nextInt(40) == 0) {
                sb.append(",extra");
            }
            sb.append(r.nextInt(3) == 0 ? "\r\n" : "\n");
        }
        return sb.toString();
    }

    /** The same cell with some of its digits changed: the same shape. */
    private static String otherDigits(java.util.Random r, String cell) {
        char[] c = cell.toCharArray();
        for (int i = 0; i < c.length; i++) {
            if (c[i] >= '0' && c[i] <= '9' && r.nextBoolean()) {
                c[i] = (char) ('0' + r.nextInt(10));
            }
        }
        return new String(c);
    }

    private static String pick(java.util.Random r, byte kind, boolean events, boolean odd) {
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
