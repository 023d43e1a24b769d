import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * Measures the three ways the router could get a request's token ids, on a ~100k-token agent conversation
 * (docs/kv-events.md, "Token ids: how the router learns what a request needs"):
 *  1. vLLM's /tokenize with the chat messages (here the simulator's, which renders and tokenizes deterministically):
 *     one more round trip per request, and the router parses the 100k ids from JSON;
 *  2. return_token_ids on the forwarded request: no extra round trip, the same parse, usable for the next step only;
 *  3. an in-router tokenizer: DJL's HuggingFace tokenizers (the Rust library vLLM's fast tokenizers are, through JNI)
 *     with the model's tokenizer.json, here Qwen3's, after rendering the ChatML the model's chat template renders.
 * Run (the classpath from bench/scripts/tokenize-options/pom.xml, a simulator on 127.0.0.1:21555):
 *   java -cp "$(cat cp.txt)" TokenizeOptions.java http://127.0.0.1:21555 /path/to/tokenizer.json [rounds]
 */
public class TokenizeOptions {

    public static void main(String[] args) throws Exception {
        String sim = args[0];
        Path tokenizerJson = Path.of(args[1]);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 15;
        var mx = ManagementFactory.getThreadMXBean();
        ObjectMapper json = new ObjectMapper();

        // An agent's conversation: a system prompt and turns of prose and code, about 400 KB of text.
        String source = Files.readString(Path.of("router/README.md")) + Files.readString(Path.of("bench/README.md"));
        ObjectNode body = json.createObjectNode();
        body.put("model", "Qwen/Qwen3-4B-Instruct-2507");
        ArrayNode messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", source.substring(0, 8_000));
        StringBuilder chatml = new StringBuilder("<|im_start|>system\n" + source.substring(0, 8_000) + "<|im_end|>\n");
        int chars = 8_000;
        for (int turn = 0; chars < 400_000; turn++) {
            int from = (turn * 7_919) % (source.length() - 12_000);
            String text = source.substring(from, from + 6_000 + (turn % 5) * 1_000);
            String role = turn % 2 == 0 ? "user" : "assistant";
            messages.addObject().put("role", role).put("content", text);
            chatml.append("<|im_start|>").append(role).append('\n').append(text).append("<|im_end|>\n");
            chars += text.length();
        }
        body.put("add_generation_prompt", true);
        chatml.append("<|im_start|>assistant\n");
        byte[] request = json.writeValueAsBytes(body);
        System.out.printf("conversation: %d messages, %,d chars of text, request body %,d bytes%n",
                messages.size(), chars, request.length);

        // 1 and 2: the simulator's /tokenize, and what parsing 100k ids from a response costs.
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest post = HttpRequest.newBuilder(URI.create(sim + "/tokenize"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(request)).build();
        double[] wall = new double[rounds];
        double[] parseCpu = new double[rounds];
        int count = 0;
        byte[] last = null;
        for (int r = -3; r < rounds; r++) {
            long t0 = System.nanoTime();
            HttpResponse<byte[]> resp = http.send(post, HttpResponse.BodyHandlers.ofByteArray());
            long t1 = System.nanoTime();
            long c0 = mx.getCurrentThreadCpuTime();
            int[] ids = parseTokens(resp.body());
            long c1 = mx.getCurrentThreadCpuTime();
            if (r >= 0) {
                wall[r] = (t1 - t0) / 1e6;
                parseCpu[r] = (c1 - c0) / 1e6;
            }
            count = ids.length;
            last = resp.body();
        }
        System.out.printf("/tokenize (simulator): %,d tokens, response %,d bytes, round trip median %.1f ms"
                        + " (p90 %.1f), router CPU to parse the ids median %.2f ms%n",
                count, last.length, median(wall), pct(wall, 0.9), median(parseCpu));

        // 3: in-router, DJL HuggingFace tokenizers with Qwen3's tokenizer.json.
        long l0 = System.nanoTime();
        long heap0 = usedHeap();
        HuggingFaceTokenizer tok = HuggingFaceTokenizer.newInstance(tokenizerJson,
                Map.of("addSpecialTokens", "false", "truncation", "false", "maxLength", "1000000"));
        long loadMs = (System.nanoTime() - l0) / 1_000_000;
        long heapDelta = usedHeap() - heap0;
        String text = chatml.toString();
        double[] encWall = new double[rounds];
        double[] encCpu = new double[rounds];
        int n = 0;
        for (int r = -3; r < rounds; r++) {
            long t0 = System.nanoTime();
            long c0 = mx.getCurrentThreadCpuTime();
            Encoding e = tok.encode(text, false, false);
            long c1 = mx.getCurrentThreadCpuTime();
            long t1 = System.nanoTime();
            n = e.getIds().length;
            if (r >= 0) {
                encWall[r] = (t1 - t0) / 1e6;
                encCpu[r] = (c1 - c0) / 1e6;
            }
        }
        long[] again = tok.encode(text, false, false).getIds();
        long[] once = tok.encode(text, false, false).getIds();
        System.out.printf("in-router (DJL tokenizers 0.36.0, Qwen3 tokenizer.json): load %d ms, Java heap +%,d bytes"
                        + " (the vocabulary lives in native memory), %,d tokens (%.2f chars/token),"
                        + " encode median %.1f ms wall, %.1f ms CPU on the calling thread; deterministic: %s%n",
                loadMs, heapDelta, n, (double) text.length() / n, median(encWall), median(encCpu),
                Arrays.equals(again, once));
        tok.close();
    }

    /** The router's way: Jackson's streaming parser into an int[], no tree. */
    static int[] parseTokens(byte[] body) throws Exception {
        try (JsonParser p = new JsonFactory().createParser(body)) {
            int[] ids = new int[1024];
            int n = 0;
            while (p.nextToken() != null) {
                if (p.currentToken() == JsonToken.FIELD_NAME
                        && ("tokens".equals(p.currentName()) || "prompt_token_ids".equals(p.currentName()))) {
                    p.nextToken();
                    while (p.nextToken() == JsonToken.VALUE_NUMBER_INT) {
                        if (n == ids.length) {
                            ids = Arrays.copyOf(ids, n * 2);
                        }
                        ids[n++] = p.getIntValue();
                    }
                }
            }
            return Arrays.copyOf(ids, n);
        }
    }

    static long usedHeap() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return rt.totalMemory() - rt.freeMemory();
    }

    static double median(double[] v) {
        return pct(v, 0.5);
    }

    static double pct(double[] v, double q) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[Math.min(s.length - 1, (int) Math.round(q * (s.length - 1)))];
    }
}
