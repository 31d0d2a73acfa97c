package io.hbmledger.run;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Failed file operations in words a user can act on. Java's file exceptions often carry only a
 * path as their message ({@code AccessDeniedException: /run/.report.json.123.tmp}): the reason
 * (EACCES, EROFS, ENOSPC) is in the exception's type or its {@code getReason()}, and the path
 * may be a temporary file the user never named.
 */
public final class FileProblem {

    private FileProblem() {
    }

    /**
     * Why the operation failed, lower case, e.g. {@code permission denied}, {@code read-only file
     * system}, {@code no space left on device}, {@code no such file or directory}.
     */
    public static String reason(IOException e) {
        if (e instanceof FileSystemException fse && fse.getReason() != null && !fse.getReason().isBlank()) {
            return lower(fse.getReason());
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "it already exists";
        }
        if (e instanceof NotDirectoryException) {
            return "not a directory";
        }
        if (e instanceof DirectoryNotEmptyException) {
            return "directory not empty";
        }
        if (e instanceof FileSystemException) {
            return e.getClass().getSimpleName();
        }
        // FileChannel.write reports ENOSPC / EDQUOT as a plain IOException with the errno text
        return e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : lower(e.getMessage());
    }

    /** What the user can do about {@link #reason}, as a clause; empty when nothing general applies. */
    public static String advice(IOException e) {
        String r = reason(e);
        if (r.contains("permission denied") || r.contains("operation not permitted")) {
            return "this user lacks the permission: run as the owner, change the permissions, or choose another place";
        }
        if (r.contains("read-only file system")) {
            return "that file system is mounted read-only: choose a place on a writable one";
        }
        if (r.contains("no space left") || r.contains("quota")) {
            return "free space there, or choose a place on another file system";
        }
        if (r.contains("not a directory")) {
            return "a part of the path is a file, not a directory";
        }
        return "";
    }

    /** "cannot read: REASON (ADVICE)", for a file already named in the message. */
    public static String cannotRead(IOException e) {
        String advice = advice(e);
        return "cannot read: " + reason(e) + (advice.isEmpty() ? "" : " (" + advice + ")");
    }

    /** "cannot write PATH: REASON (ADVICE)", for a failed write of {@code target}. */
    public static String cannotWrite(Path target, IOException e) {
        String advice = advice(e);
        return "cannot write " + target + ": " + reason(e) + (advice.isEmpty() ? "" : " (" + advice + ")");
    }

    /** "PATH: REASON (ADVICE)" for a failure whose path is known, else "REASON (ADVICE)". */
    public static String describe(IOException e) {
        String advice = advice(e);
        String file = e instanceof FileSystemException fse ? fse.getFile() : null;
        return (file == null ? "" : file + ": ") + reason(e) + (advice.isEmpty() ? "" : " (" + advice + ")");
    }

    /**
     * The same failure told about {@code target} rather than the temporary or intermediate file
     * the operation touched, so that a caller printing {@code getMessage()} names the user's path.
     */
    public static FileSystemException about(Path target, IOException e) {
        if (e instanceof FileSystemException fse && fse.getFile() != null && fse.getFile().equals(target.toString())) {
            return fse;
        }
        String reason = reason(e);
        String where = e instanceof FileSystemException fse && fse.getFile() != null
                && !fse.getFile().equals(target.toString()) && !fse.getFile().contains(".tmp")
                ? " at " + fse.getFile() : "";
        FileSystemException out = new FileSystemException(target.toString(), null, reason + where);
        out.initCause(e);
        return out;
    }

    /** What is at {@code p}, e.g. "a regular file", for "expected ..., found ..." messages. */
    public static String found(Path p) {
        if (Files.isSymbolicLink(p) && !Files.exists(p)) {
            return "a symbolic link to nothing";
        }
        if (Files.isDirectory(p)) {
            return "a directory";
        }
        if (Files.isRegularFile(p)) {
            return "a regular file";
        }
        if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return "a special file (device, pipe or socket)";
        }
        return "nothing";
    }

    private static String lower(String s) {
        String t = s.strip();
        // "Read-only file system" -> "read-only file system"; an all-caps word (an errno name) stays
        return t.length() > 1 && Character.isUpperCase(t.charAt(0)) && !Character.isUpperCase(t.charAt(1))
                ? t.substring(0, 1).toLowerCase(Locale.ROOT) + t.substring(1) : t;
    }
}
