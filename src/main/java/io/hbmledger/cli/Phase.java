package io.hbmledger.cli;
public final class Phase {
    static final boolean ON = System.getProperty("phase") != null;
    static final long W = System.currentTimeMillis() * 1000, N = System.nanoTime();
    public static void mark(String n) { if (ON) System.err.println("PHASE " + n + " " + (W + (System.nanoTime() - N) / 1000)); }
}
