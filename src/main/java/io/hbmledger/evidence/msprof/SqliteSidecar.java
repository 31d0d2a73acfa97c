package io.hbmledger.evidence.msprof;

import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.FileHead;
import java.util.List;
import java.util.Optional;

/**
 * Recognises the files SQLite keeps beside a database ({@code X.db-wal}, {@code X.db-shm},
 * {@code X.db-journal}): they travel with an msprof or torch_npu {@code .db} export when it is
 * copied while open, or when the writer left WAL mode on. They hold no evidence of their own;
 * {@link DbScan} reads a WAL together with its database. Recognised by name and by SQLite's own
 * header (file formats of sqlite.org/fileformat2.html and walformat.html): the WAL magic
 * 0x377f0682/3, the wal-index version 3007000 in native byte order, the journal magic
 * d9d505f920a163d7, or an empty file (SQLite truncates a checkpointed WAL to zero bytes).
 */
public final class SqliteSidecar {

    private static final List<String> SUFFIXES = List.of("-wal", "-shm", "-journal");

    private SqliteSidecar() {
    }

    /** An empty-of-evidence result naming the database, or empty when the file is not a sidecar. */
    public static Optional<EvidenceFile> read(FileHead head, String displayPath) {
        String name = head.fileName();
        for (String suffix : SUFFIXES) {
            if (name.endsWith(suffix) && name.length() > suffix.length() && hasSqliteHeader(suffix, head)) {
                String database = name.substring(0, name.length() - suffix.length());
                return Optional.of(new EvidenceFile(displayPath, EvidenceFormat.SQLITE_SIDECAR, List.of(),
                        List.of("a SQLite " + kind(suffix) + " of " + database
                                + "; it holds no evidence on its own: pass " + database
                                + " (its write-ahead log beside it is read with it)")));
            }
        }
        return Optional.empty();
    }

    private static String kind(String suffix) {
        return switch (suffix) {
            case "-wal" -> "write-ahead log";
            case "-shm" -> "wal-index (shared-memory file)";
            default -> "rollback journal";
        };
    }

    private static boolean hasSqliteHeader(String suffix, FileHead head) {
        byte[] b = head.head();
        if (head.size() == 0) {
            return true;
        }
        if (b.length < 8) {
            return false;
        }
        int bigEndian = ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
        int littleEndian = Integer.reverseBytes(bigEndian);
        return switch (suffix) {
            case "-wal" -> bigEndian == 0x377f0682 || bigEndian == 0x377f0683;
            case "-shm" -> bigEndian == 3007000 || littleEndian == 3007000;
            default -> bigEndian == 0xd9d505f9 && (b[4] & 0xff) == 0x20 && (b[5] & 0xff) == 0xa1
                    && (b[6] & 0xff) == 0x63 && (b[7] & 0xff) == 0xd7;
        };
    }
}
