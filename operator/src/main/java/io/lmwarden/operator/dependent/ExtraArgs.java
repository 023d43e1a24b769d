package io.lmwarden.operator.dependent;

import java.util.List;

/** Checks on {@code spec.extraArgs}: vLLM flags the operator derives from a spec field must not be given twice. */
final class ExtraArgs {

    private ExtraArgs() {
    }

    /**
     * @param field the spec field that sets these flags, named in the message
     * @throws IllegalArgumentException when an argument is one of the flags, as {@code --flag value} or {@code --flag=value}
     */
    static void refuse(List<String> extraArgs, String field, String... flags) {
        for (String arg : extraArgs) {
            for (String flag : flags) {
                if (arg.equals(flag) || arg.startsWith(flag + "=")) {
                    throw new IllegalArgumentException("spec.extraArgs sets " + flag + ", which " + field
                            + " sets: remove it from extraArgs and configure " + field + " instead");
                }
            }
        }
    }
}
