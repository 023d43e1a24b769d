package io.lmwarden.router.proxy;

import io.vertx.core.buffer.Buffer;

import java.util.List;

/**
 * The stages an answer's body passes, in order ({@link BodyInterceptor}): what the router reads of it (completion,
 * cached tokens: {@link ResponseObserver}), then what it takes out of it (the token ids it asked for:
 * {@link TokenIdsFilter}). What one stage passes on is what the next one sees.
 */
record BodyRelay(List<BodyInterceptor> stages) {

    BodyRelay {
        stages = List.copyOf(stages);
    }

    Buffer chunk(Buffer in) {
        Buffer out = in;
        for (BodyInterceptor s : stages) {
            if (out.length() == 0) {
                return out;
            }
            out = s.chunk(out);
        }
        return out;
    }

    /** What the stages held back, each stage's rest passed through the stages after it. */
    Buffer end() {
        Buffer out = Buffer.buffer();
        for (int i = 0; i < stages.size(); i++) {
            Buffer rest = stages.get(i).end();
            for (int j = i + 1; j < stages.size() && rest.length() > 0; j++) {
                rest = stages.get(j).chunk(rest);
            }
            out.appendBuffer(rest);
        }
        return out;
    }

    boolean changesLength() {
        return stages.stream().anyMatch(BodyInterceptor::changesLength);
    }
}
