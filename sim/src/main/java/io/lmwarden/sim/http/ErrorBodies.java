package io.lmwarden.sim.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.common.api.ApiDialect;

/**
 * Error bodies as vLLM writes them, in the shape of the request's API: OpenAI's current one,
 * {"error":{"message","type","param","code"}}, or Anthropic's, {"type":"error","error":{"type","message"}}.
 */
final class ErrorBodies {

    private ErrorBodies() {
    }

    /** OpenAI's shape with an error type of vLLM's own choosing ({@code create_error_response(err_type=…)}). */
    static String of(int status, String type, String message, String param) {
        ObjectNode root = Json.object();
        ObjectNode e = root.putObject("error");
        e.put("message", message);
        e.put("type", type);
        if (param == null) {
            e.putNull("param");
        } else {
            e.put("param", param);
        }
        e.put("code", status);
        return root.toString();
    }

    /** @param dialect the API of the endpoint; null for vLLM's own endpoints, which answer in OpenAI's shape */
    static String of(ApiDialect dialect, int status, String message, String param) {
        ObjectNode root = Json.object();
        if (dialect == null || !dialect.anthropic()) {
            ObjectNode e = root.putObject("error");
            e.put("message", message);
            e.put("type", openAiType(status));
            if (param == null) {
                e.putNull("param");
            } else {
                e.put("param", param);
            }
            e.put("code", status);
        } else {
            root.put("type", "error");
            ObjectNode e = root.putObject("error");
            e.put("type", anthropicType(status));
            e.put("message", message);
        }
        return root.toString();
    }

    private static String openAiType(int status) {
        return switch (status) {
            case 400 -> "BadRequestError";
            case 401 -> "AuthenticationError";
            case 403 -> "PermissionDeniedError";
            case 404 -> "NotFoundError";
            case 405 -> "MethodNotAllowedError";
            case 413 -> "RequestTooLargeError";
            case 429 -> "RateLimitError";
            case 503 -> "ServiceUnavailableError";
            default -> status >= 500 ? "InternalServerError" : "BadRequestError";
        };
    }

    private static String anthropicType(int status) {
        return switch (status) {
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 529, 503 -> "overloaded_error";
            default -> status >= 500 ? "api_error" : "invalid_request_error";
        };
    }
}
