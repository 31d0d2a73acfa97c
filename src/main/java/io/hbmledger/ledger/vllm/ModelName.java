package io.hbmledger.ledger.vllm;

/**
 * A model as a start names it, to tell servers apart: "/models/Qwen2.5-14B" and "Qwen/Qwen2.5-14B"
 * are one model (the same last path part), and so is a cache path that holds the name
 * (".../models--Qwen--Qwen2.5-14B/snapshots/abc").
 */
record ModelName(String whole, String last) {

    static ModelName of(String written) {
        String m = written.strip().replaceAll("[/\\\\]+$", "").toLowerCase(java.util.Locale.ROOT);
        int slash = Math.max(m.lastIndexOf('/'), m.lastIndexOf('\\'));
        return new ModelName(m, m.substring(slash + 1));
    }

    boolean same(ModelName o) {
        return last.equals(o.last) || whole.contains(o.last) || o.whole.contains(last);
    }
}
