package io.lmwarden.router.proxy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.lmwarden.common.api.ApiDialect;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * Errors in the client's own API shape: OpenAI's {@code {"error":{…}}} or Anthropic's
 * {@code {"type":"error","error":{…}}}, as a whole body or as a stream event.
 */
public final class ApiErrors {

    private static final JsonFactory JSON = new JsonFactory();

    private ApiErrors() {
    }

    public static String body(ApiDialect dialect, int status, String message) {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(w)) {
            g.writeStartObject();
            if (dialect != null && dialect.anthropic()) {
                g.writeStringField("type", "error");
                g.writeObjectFieldStart("error");
                g.writeStringField("type", anthropicType(status));
                g.writeStringField("message", message);
                g.writeEndObject();
            } else {
                g.writeObjectFieldStart("error");
                g.writeStringField("message", message);
                g.writeStringField("type", openAiType(status));
                g.writeNullField("param");
                g.writeNumberField("code", status);
                g.writeEndObject();
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }

    /** An error as the last event of a stream that already started: the client sees why it ended. */
    public static String streamEvent(ApiDialect dialect, int status, String message) {
        String body = body(dialect, status, message);
        if (dialect != null && dialect.anthropic()) {
            return "event: error\ndata: " + body + "\n\n";
        }
        return "data: " + body + "\n\n";
    }

    static String openAiType(int status) {
        return switch (status) {
            case 400, 413, 422 -> "BadRequestError";
            case 401 -> "AuthenticationError";
            case 403 -> "PermissionDeniedError";
            case 404 -> "NotFoundError";
            case 429 -> "RateLimitError";
            case 503 -> "ServiceUnavailableError";
            case 504 -> "TimeoutError";
            default -> status >= 500 ? "InternalServerError" : "BadRequestError";
        };
    }

    static String anthropicType(int status) {
        return switch (status) {
            case 400, 422 -> "invalid_request_error";
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 503, 529 -> "overloaded_error";
            case 504 -> "timeout_error";
            default -> status >= 500 ? "api_error" : "invalid_request_error";
        };
    }
}
