package io.hbmledger.load;

import java.nio.file.Path;

/**
 * One evidence entry that is msprof data: an export directory or one of its files.
 *
 * @param path where it lies
 * @param sourceName the entry as the run names it (relative to the run directory)
 */
record MsprofItem(Path path, String sourceName) {
}
