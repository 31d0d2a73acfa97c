package io.hbmledger.collect;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hides secrets (API keys, tokens, passwords) in argument lists and text before they are written to
 * execution records, run.json, copied logs or reports. The real values still reach the server: only
 * what is recorded is masked.
 */
public final class Redactor {

    /** What a hidden value is replaced with. */
    public static final String MASK = "***";

    // Option names that carry a secret: vLLM's --api-key, Hugging Face tokens, and the usual
    // suspects. Anchored at the end so that --tokenizer or --max-num-batched-tokens stay visible.
    private static final String NAME = "[A-Za-z0-9_-]*(?:api[-_]?key|token|secret|password|passwd|credentials?)";
    private static final Pattern SECRET_NAME = Pattern.compile("(?i)^-*" + NAME + "$");
    // --api-key VALUE, --api-key=VALUE, and the JSON / Python list form "--api-key", "VALUE"
    private static final Pattern SECRET_OPTION_IN_TEXT = Pattern.compile(
            "(?i)(--?" + NAME + ")(=|\\s+|[\"']\\s*,\\s*[\"'])([^\\s\"',\\]]+)");
    // api_key='VALUE', "api_key": "VALUE" (Python and JSON dumps of vLLM's arguments)
    private static final Pattern SECRET_KEY_IN_TEXT = Pattern.compile(
            "(?i)\\b(" + NAME + ")[\"']?\\s*[=:]\\s*[\"']([^\"']+)[\"']");
    private static final Pattern SECRET_ENV_IN_TEXT = Pattern.compile(
            "\\b([A-Z0-9_]*(?:API_KEY|TOKEN|SECRET|PASSWORD))=(\\S+)");
    private static final Pattern BEARER = Pattern.compile("(?i)(Bearer\\s+)([A-Za-z0-9._~+/=-]+)");

    private static final Pattern TOKEN = Pattern.compile("[^\\s\"',=\\[\\](){}]{4,}");

    private final Set<String> secretValues = new LinkedHashSet<>();
    private final Set<String> secretHashes = new LinkedHashSet<>();
    private String salt;

    /**
     * Salted SHA-256 of each secret value this redactor knows, so that a record can later mask the
     * value in a log without ever storing it.
     */
    public List<String> hashes(String saltHex) {
        List<String> out = new ArrayList<>();
        for (String v : secretValues) {
            out.add(hash(saltHex, v));
        }
        return out;
    }

    /** Also mask any word whose salted hash is one of {@code hashes} (see {@link #hashes}). */
    public void addHashedSecrets(String saltHex, List<String> hashes) {
        if (saltHex != null && hashes != null && !hashes.isEmpty()) {
            this.salt = saltHex;
            this.secretHashes.addAll(hashes);
        }
    }

    static String hash(String saltHex, String value) {
        try {
            java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
            md.update(java.util.HexFormat.of().parseHex(saltHex));
            return java.util.HexFormat.of().formatHex(md.digest(value.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A redactor that also masks the secret values found in {@code argv}, wherever they appear later. */
    public static Redactor forArguments(List<String> argv) {
        Redactor r = new Redactor();
        for (int i = 0; i < argv.size(); i++) {
            String a = argv.get(i);
            if (!a.startsWith("-")) {
                continue;
            }
            int eq = a.indexOf('=');
            String name = eq > 0 ? a.substring(0, eq) : a;
            if (!isSecretName(name)) {
                continue;
            }
            if (eq > 0) {
                r.addSecret(a.substring(eq + 1));
            } else if (i + 1 < argv.size()) {
                r.addSecret(argv.get(i + 1));
            }
        }
        return r;
    }

    /** Also mask this literal value wherever it appears (ignored when shorter than 4 characters). */
    public void addSecret(String value) {
        if (value != null && value.length() >= 4) {
            secretValues.add(value);
        }
    }

    /** The argument list with every secret option's value replaced by {@link #MASK}. */
    public List<String> arguments(List<String> argv) {
        List<String> out = new ArrayList<>(argv.size());
        boolean maskNext = false;
        for (String a : argv) {
            if (maskNext) {
                out.add(MASK);
                maskNext = false;
                continue;
            }
            if (a.startsWith("-")) {
                int eq = a.indexOf('=');
                String name = eq > 0 ? a.substring(0, eq) : a;
                if (isSecretName(name)) {
                    if (eq > 0) {
                        out.add(name + "=" + MASK);
                    } else {
                        out.add(a);
                        maskNext = true;
                    }
                    continue;
                }
            }
            out.add(text(a));
        }
        return out;
    }

    /** The text with known secret values, secret options, secret environment assignments and bearer tokens masked. */
    public String text(String s) {
        String out = s;
        for (String v : secretValues) {
            out = out.replace(v, MASK);
        }
        if (!secretHashes.isEmpty()) {
            Matcher m = TOKEN.matcher(out);
            StringBuilder sb = new StringBuilder();
            while (m.find()) {
                m.appendReplacement(sb, Matcher.quoteReplacement(
                        secretHashes.contains(hash(salt, m.group())) ? MASK : m.group()));
            }
            m.appendTail(sb);
            out = sb.toString();
        }
        out = replaceGroup(SECRET_OPTION_IN_TEXT, out, 3);
        out = replaceGroup(SECRET_KEY_IN_TEXT, out, 2);
        out = replaceGroup(SECRET_ENV_IN_TEXT, out, 2);
        out = replaceGroup(BEARER, out, 2);
        return out;
    }

    /** True when {@link #text} would change {@code s}. */
    public boolean hasSecret(String s) {
        return !text(s).equals(s);
    }

    private static String replaceGroup(Pattern p, String s, int group) {
        Matcher m = p.matcher(s);
        StringBuilder sb = new StringBuilder();
        boolean any = false;
        while (m.find()) {
            if (MASK.equals(m.group(group))) {
                continue;
            }
            any = true;
            String whole = m.group();
            int rel = m.start(group) - m.start();
            String replaced = whole.substring(0, rel) + MASK + whole.substring(rel + m.group(group).length());
            m.appendReplacement(sb, Matcher.quoteReplacement(replaced));
        }
        if (!any) {
            return s;
        }
        m.appendTail(sb);
        return sb.toString();
    }

    static boolean isSecretName(String optionName) {
        return SECRET_NAME.matcher(optionName).matches();
    }
}
