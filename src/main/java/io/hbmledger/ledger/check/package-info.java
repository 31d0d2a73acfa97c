/**
 * Consistency checks on a device's ledger (report-v1 checks); they read decided lines and write none.
 */
package io.hbmledger.ledger.check;
