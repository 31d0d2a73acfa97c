package io.hbmledger.report;

import io.hbmledger.ledger.Units;
import java.util.List;

/**
 * The timeline in inline SVG: one polyline per device and source (npu-smi samples, msprof
 * npu_mem values), the run's moments as vertical marks, each device's msprof peak marked.
 */
final class HtmlTimeline {

    private static final int WIDTH = 1000;
    private static final int HEIGHT = 280;
    private static final int LEFT = 60;
    private static final int TOP = 24;
    private static final int BOTTOM = 40;
    private static final String[] PALETTE = {"#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#953800", "#54aeff", "#e85aad"};

    private HtmlTimeline() {
    }

    static String svg(Timeline t) {
        long minX = Long.MAX_VALUE;
        long maxX = Long.MIN_VALUE;
        long maxY = 1;
        for (Timeline.Line l : t.lines()) {
            for (Timeline.Point p : l.points()) {
                minX = Math.min(minX, p.x());
                maxX = Math.max(maxX, p.x());
                maxY = Math.max(maxY, p.bytes());
            }
        }
        for (Timeline.Mark m : t.marks()) {
            minX = Math.min(minX, m.x());
            maxX = Math.max(maxX, m.x());
        }
        double spanX = Math.max(1, maxX - minX);
        double plotW = WIDTH - LEFT - 20;
        double plotH = HEIGHT - TOP - BOTTOM;
        long top = maxY;
        StringBuilder s = new StringBuilder("<svg id=\"timeline-svg\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + WIDTH
                + "\" height=\"" + HEIGHT + "\" viewBox=\"0 0 " + WIDTH + " " + HEIGHT + "\" role=\"img\">");
        s.append("<line class=\"axis\" x1=\"").append(LEFT).append("\" x2=\"").append(WIDTH - 20).append("\" y1=\"")
                .append(HEIGHT - BOTTOM).append("\" y2=\"").append(HEIGHT - BOTTOM).append("\"/>");
        for (int i = 0; i <= 4; i++) {
            long v = top * i / 4;
            double y = HEIGHT - BOTTOM - plotH * i / 4;
            s.append("<text x=\"4\" y=\"").append(Html.num(y + 4)).append("\">").append(Units.gibNumber(v)).append("</text>");
        }
        s.append("<text x=\"4\" y=\"14\">GiB</text>");
        int markRow = 0;
        for (Timeline.Mark m : t.marks()) {
            double x = LEFT + (m.x() - minX) / spanX * plotW;
            String name = m.device() == null ? m.name() : m.name() + " " + m.device();
            s.append("<line class=\"mark\" data-mark=\"").append(Html.esc(m.name())).append("\" x1=\"").append(Html.num(x))
                    .append("\" x2=\"").append(Html.num(x)).append("\" y1=\"").append(TOP).append("\" y2=\"").append(HEIGHT - BOTTOM)
                    .append("\"><title>").append(Html.esc(name)).append("</title></line>");
            s.append("<text class=\"mark-label\" x=\"").append(Html.num(x + 2)).append("\" y=\"")
                    .append(HEIGHT - BOTTOM + 14 + 12 * (markRow++ % 2)).append("\">").append(Html.esc(m.name())).append("</text>");
        }
        for (int i = 0; i < t.lines().size(); i++) {
            Timeline.Line l = t.lines().get(i);
            String colour = PALETTE[i % PALETTE.length];
            StringBuilder pts = new StringBuilder();
            StringBuilder dots = new StringBuilder();
            for (Timeline.Point p : l.points()) {
                double x = LEFT + (p.x() - minX) / spanX * plotW;
                double y = HEIGHT - BOTTOM - p.bytes() / (double) top * plotH;
                pts.append(pts.length() == 0 ? "" : " ").append(Html.num(x)).append(',').append(Html.num(y));
                String what = l.device() + " " + l.kind() + " " + p.label() + ": " + Units.gib(p.bytes());
                dots.append("<circle class=\"tl-point\" r=\"4\" fill=\"").append(colour).append("\" cx=\"").append(Html.num(x))
                        .append("\" cy=\"").append(Html.num(y)).append("\" data-device=\"").append(Html.esc(l.device()))
                        .append("\" data-bytes=\"").append(p.bytes()).append("\" data-evidence=\"")
                        .append(Html.esc(what + "\n" + (p.source() == null ? "" : p.source().shortForm()))).append("\"><title>")
                        .append(Html.esc(what)).append("</title></circle>");
            }
            s.append("<polyline class=\"tl-line\" stroke=\"").append(colour).append("\" data-device=\"").append(Html.esc(l.device()))
                    .append("\" data-kind=\"").append(Html.esc(l.kind())).append("\" points=\"").append(pts).append("\"/>").append(dots);
        }
        return s.append("</svg>").toString();
    }

    /** The legend: colour, device and source of each line. */
    static String legend(Timeline t) {
        StringBuilder s = new StringBuilder("<div class=\"legend\">");
        for (int i = 0; i < t.lines().size(); i++) {
            Timeline.Line l = t.lines().get(i);
            s.append("<span><i style=\"background:").append(PALETTE[i % PALETTE.length]).append("\"></i>")
                    .append(Html.esc(l.device() + " " + l.kind())).append("</span>");
        }
        return s.append("</div>").toString();
    }
}
