package io.hbmledger.load;

import io.hbmledger.run.Moment;
import java.nio.file.Path;

/**
 * One evidence file to read, with what the run says about it.
 *
 * @param path where it lies
 * @param shown the path as named in messages
 * @param sourceName the file as the ledger cites it (as run.json names it)
 * @param moment when it was taken, or null
 * @param rank the rank whose figures it holds, or null to take it from worker labels
 * @param device the logical device its figures concern, or null
 */
record RunInput(Path path, String shown, String sourceName, Moment moment, Integer rank, Integer device) {
}
