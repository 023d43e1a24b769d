package io.lmwarden.router.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 by hand over a socket, for what no well-behaved client sends: raw bytes, bad framing,
 * absolute-form targets, slow writers. Reads the answer until the server closes or goes quiet.
 */
public final class RawHttp {

    /**
     * A response, or {@code status == -1} when the server closed without answering. {@code timedOut}: the read ended
     * because the client's read timeout passed, not because the server closed or reset the connection.
     */
    public record Reply(int status, Map<String, String> headers, String body, long millis, boolean timedOut) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /** One step of a client's writing: bytes, then a pause. */
    public record Write(byte[] bytes, long pauseMs) {
        public static Write of(String s) {
            return new Write(s.getBytes(StandardCharsets.ISO_8859_1), 0);
        }

        public static Write of(String s, long pauseMs) {
            return new Write(s.getBytes(StandardCharsets.ISO_8859_1), pauseMs);
        }
    }

    private RawHttp() {
    }

    public static Reply exchange(String baseUrl, byte[] request, long readTimeoutMs) {
        return exchange(baseUrl, new Write[] {new Write(request, 0)}, readTimeoutMs);
    }

    public static Reply exchange(String baseUrl, Write[] writes, long readTimeoutMs) {
        URI u = URI.create(baseUrl);
        long start = System.nanoTime();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(u.getHost(), u.getPort()), 5000);
            s.setSoTimeout((int) readTimeoutMs);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            try {
                for (Write w : writes) {
                    out.write(w.bytes());
                    out.flush();
                    if (w.pauseMs() > 0) {
                        Thread.sleep(w.pauseMs());
                    }
                }
            } catch (IOException e) {
                // The server may close before the client is done writing: read what it said.
            }
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            boolean timedOut = false;
            try {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    got.write(buf, 0, n);
                    if (complete(got.toByteArray())) {
                        break;
                    }
                }
            } catch (SocketTimeoutException e) {
                timedOut = true;
            } catch (java.net.SocketException e) {
                // reset by the server: parse what came
            }
            return parse(got.toByteArray(), (System.nanoTime() - start) / 1_000_000, timedOut);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Whether a whole response with a Content-Length (or none and a HEAD-like empty body) has arrived. */
    private static boolean complete(byte[] bytes) {
        String s = new String(bytes, StandardCharsets.ISO_8859_1);
        int end = s.indexOf("\r\n\r\n");
        if (end < 0) {
            return false;
        }
        Map<String, String> h = headers(s.substring(0, end));
        String len = h.get("content-length");
        if (len != null) {
            return bytes.length - end - 4 >= Integer.parseInt(len.trim());
        }
        return "chunked".equalsIgnoreCase(h.get("transfer-encoding")) && s.endsWith("0\r\n\r\n");
    }

    private static Reply parse(byte[] bytes, long millis, boolean timedOut) {
        String s = new String(bytes, StandardCharsets.UTF_8);
        int end = s.indexOf("\r\n\r\n");
        if (!s.startsWith("HTTP/") || end < 0) {
            return new Reply(-1, Map.of(), s, millis, timedOut);
        }
        String head = s.substring(0, end);
        int status = Integer.parseInt(head.substring(9, 12));
        Map<String, String> h = headers(head);
        String body = s.substring(end + 4);
        if ("chunked".equalsIgnoreCase(h.get("transfer-encoding"))) {
            body = dechunk(body);
        }
        return new Reply(status, h, body, millis, timedOut);
    }

    private static Map<String, String> headers(String head) {
        Map<String, String> h = new LinkedHashMap<>();
        String[] lines = head.split("\r\n");
        for (int i = 1; i < lines.length; i++) {
            int c = lines[i].indexOf(':');
            if (c > 0) {
                h.put(lines[i].substring(0, c).trim().toLowerCase(Locale.ROOT), lines[i].substring(c + 1).trim());
            }
        }
        return h;
    }

    private static String dechunk(String body) {
        StringBuilder out = new StringBuilder();
        int at = 0;
        while (at < body.length()) {
            int nl = body.indexOf("\r\n", at);
            if (nl < 0) {
                break;
            }
            int size = Integer.parseInt(body.substring(at, nl).trim(), 16);
            if (size == 0) {
                break;
            }
            out.append(body, nl + 2, Math.min(body.length(), nl + 2 + size));
            at = nl + 2 + size + 2;
        }
        return out.toString();
    }
}
