package io.lmwarden.router.config;

import java.util.Locale;

/** Parses byte sizes such as {@code 32MiB}, {@code 512KiB}, {@code 1048576}. */
public final class ByteSizes {

    private ByteSizes() {
    }

    public static long parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT).replace(" ", "");
        long unit = 1;
        String digits = t;
        String[][] units = {{"gib", "1073741824"}, {"mib", "1048576"}, {"kib", "1024"}, {"gb", "1000000000"},
                {"mb", "1000000"}, {"kb", "1000"}, {"g", "1073741824"}, {"m", "1048576"}, {"k", "1024"}, {"b", "1"}};
        for (String[] u : units) {
            if (t.endsWith(u[0])) {
                unit = Long.parseLong(u[1]);
                digits = t.substring(0, t.length() - u[0].length());
                break;
            }
        }
        try {
            long value = Long.parseLong(digits) * unit;
            if (value <= 0) {
                throw new NumberFormatException();
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a byte size: '" + text + "' (use forms like 32MiB, 512KiB, 1048576)");
        }
    }
}
