package io.hbmledger.report;

import io.hbmledger.ledger.Source;
import java.util.List;

/**
 * Device memory over the run, for the HTML view: per device, the npu-smi / nvidia-smi samples and
 * the msprof npu_mem values the evidence holds, with the run's moments marked.
 *
 * @param lines one per device and source kind
 * @param marks the run's named instants ({@code baseline}, {@code ready}, {@code load_start},
 *     ...) and each device's msprof peak
 * @param timed true when x is microseconds since the Unix epoch; false when the run gives no
 *     instants and x is the moment's position (baseline 0, startup 1, ready 2, load 3, after 4)
 */
public record Timeline(List<Line> lines, List<Mark> marks, boolean timed) {

    public Timeline {
        lines = List.copyOf(lines);
        marks = List.copyOf(marks);
    }

    /**
     * The timelines of a multi-node run's nodes as one: every line and device mark with its device
     * named {@code NODE/...}; the run's moments from the first node only, as the nodes meet at each
     * moment (within the clock spread run.json records). Timed when every node's is; else only the
     * untimed nodes' lines, on the moments' axis.
     */
    public static Timeline ofNodes(List<String> nodes, List<Timeline> timelines) {
        List<Line> lines = new java.util.ArrayList<>();
        List<Mark> marks = new java.util.ArrayList<>();
        boolean timed = timelines.stream().allMatch(Timeline::timed);
        for (int i = 0; i < nodes.size(); i++) {
            String node = nodes.get(i);
            Timeline t = timelines.get(i);
            if (t.timed != timed) {
                continue;   // a node whose run gives no instants cannot share the others' time axis
            }
            t.lines.forEach(l -> lines.add(new Line(node + "/" + l.device(), l.kind(), l.points())));
            for (Mark m : t.marks) {
                if (m.device() != null) {
                    marks.add(new Mark(m.name(), m.x(), node + "/" + m.device()));
                } else if (i == 0) {
                    marks.add(m);
                }
            }
        }
        return new Timeline(lines, marks, timed);
    }

    public boolean isEmpty() {
        return lines.stream().allMatch(l -> l.points().isEmpty());
    }

    /**
     * @param device the ledger's device key
     * @param kind {@code npu-smi}, {@code nvidia-smi} or {@code msprof npu_mem}
     * @param points in time order, at most {@link TimelineBuilder#MAX_POINTS}
     */
    public record Line(String device, String kind, List<Point> points) {
        public Line {
            points = List.copyOf(points);
        }
    }

    /** One sample: x as {@link Timeline#timed()} says, bytes used, what it is, where it was read. */
    public record Point(long x, long bytes, String label, Source source) {
    }

    /** A named instant; device null for the run's moments. */
    public record Mark(String name, long x, String device) {
    }
}
