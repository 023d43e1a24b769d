package io.lmwarden.router.proxy;

import io.lmwarden.common.api.ApiDialect;
import io.vertx.core.buffer.Buffer;

/**
 * Gives a request vLLM's {@code priority} ({@code enginePriority}): on chat/completions and completions, the two
 * requests whose vLLM protocol models have the field; set once the request is admitted, from its session's service and
 * its wait ({@link io.lmwarden.router.placement.admission.EnginePriority}). vLLM's v1 engine takes the field whatever
 * its scheduling policy and orders by it only under {@code --scheduling-policy priority}
 * (vllm/v1/engine/input_processor.py at 009daaee, no check of the policy; vllm/v1/core/sched/request_queue.py at
 * 0097c7ed, the priority queue), so sending it to an FCFS engine changes nothing.
 */
final class PriorityRequest {

    private static final String FIELD = "priority";

    private PriorityRequest() {
    }

    /** The body with the priority, or the body as it is (another API, a client's own priority, no JSON object). */
    static Buffer apply(Buffer body, ApiDialect dialect, int priority) {
        if (dialect != ApiDialect.OPENAI_CHAT && dialect != ApiDialect.OPENAI_COMPLETIONS) {
            return body;
        }
        byte[] with = JsonFields.prepend(body.getBytes(), FIELD, Integer.toString(priority));
        return with == null ? body : Buffer.buffer(with);
    }
}
