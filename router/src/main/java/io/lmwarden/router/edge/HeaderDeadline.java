package io.lmwarden.router.edge;

import io.lmwarden.router.proxy.ApiErrors;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.impl.ConnectionBase;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * A request's head (request line and headers) must arrive whole within {@code headerTimeout}: from
 * connecting for the first request, from its first byte for each later one on a kept-alive connection.
 * Otherwise the client gets a 408 (or, having sent nothing at all, just the close). Vert.x decodes the
 * head before it hands over a request, so a client trickling header bytes one at a time (slowloris,
 * within the 8 KB limit) would be stopped only by the idle timeout, which every byte resets. Two small
 * Netty handlers watch the connection around Vert.x's HTTP decoder: one sees raw bytes arrive (a head
 * begins), the other sees the decoded request (the head is complete) and the end of its body (the
 * connection is between requests again; a kept-alive connection idle there is {@link ClientConnections}'
 * business). All of it runs on the connection's event loop.
 */
public final class HeaderDeadline {

    private static final Logger LOG = Logger.getLogger(HeaderDeadline.class.getName());
    private static final String DECODER = "httpDecoder";

    private final long timeoutMs;
    private ChannelHandlerContext bytesContext;
    private ScheduledFuture<?> timer;
    /** Waiting for a request's head to be complete. */
    private boolean inHead;
    /** Between a decoded head and the end of its body. */
    private boolean inRequest;
    /** Whether any byte of the awaited head arrived (a client that sent nothing gets no answer). */
    private boolean headBytesSeen;

    private HeaderDeadline(long timeoutMs) {
        this.timeoutMs = timeoutMs;
    }

    /**
     * Watches a new HTTP/1.x connection; for the server's connection handler, which Vert.x calls at
     * accept time only with h2c off ({@code HttpServerOptions#setHttp2ClearTextEnabled(false)}):
     * with h2c on, Vert.x waits for the first request before it builds the HTTP/1.x pipeline.
     */
    public static void install(HttpConnection connection, Duration headerTimeout) {
        if (!(connection instanceof ConnectionBase base)) {
            return;
        }
        ChannelPipeline pipeline = base.channel().pipeline();
        if (pipeline.get(DECODER) == null) {
            // Not an HTTP/1.x pipeline (HTTP/2 frames its own headers): nothing to watch.
            return;
        }
        HeaderDeadline deadline = new HeaderDeadline(Math.max(1, headerTimeout.toMillis()));
        pipeline.addBefore(DECODER, "lmwHeadBytes", deadline.new BytesWatch());
        pipeline.addAfter(DECODER, "lmwHeadDecoded", deadline.new DecodedWatch());
    }

    /** Sees the bytes before the decoder: the first byte while between requests starts a head's clock. */
    private final class BytesWatch extends ChannelInboundHandlerAdapter {
        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            bytesContext = ctx;
            // The first request's clock runs from connecting: a connection that never sends is cut as well.
            inHead = true;
            arm(ctx);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf b && b.isReadable()) {
                if (!inHead && !inRequest) {
                    inHead = true;
                    arm(ctx);
                }
                if (inHead) {
                    headBytesSeen = true;
                }
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            cancel();
            ctx.fireChannelInactive();
        }
    }

    /** Sees what the decoder made of the bytes: a whole head stops the clock, the body's end resets the watch. */
    private final class DecodedWatch extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest) {
                cancel();
                inHead = false;
                headBytesSeen = false;
                inRequest = true;
            }
            if (msg instanceof LastHttpContent) {
                inRequest = false;
            }
            ctx.fireChannelRead(msg);
        }
    }

    private void arm(ChannelHandlerContext ctx) {
        cancel();
        timer = ctx.executor().schedule(this::expired, timeoutMs, TimeUnit.MILLISECONDS);
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void expired() {
        timer = null;
        if (!inHead || bytesContext == null) {
            return;
        }
        ChannelHandlerContext ctx = bytesContext;
        LOG.fine(() -> "closing client connection " + ctx.channel().remoteAddress() + ": request head not complete within "
                + timeoutMs + " ms (headerTimeout)");
        if (!headBytesSeen) {
            ctx.channel().close();
            return;
        }
        // Written from before the HTTP codec: the decoder holds a half-read head, the encoder has no response to frame.
        byte[] body = ApiErrors.body(null, 408, "the request's headers did not arrive within " + timeoutMs
                + " ms (headerTimeout); send the request line and headers without pausing").getBytes(StandardCharsets.UTF_8);
        byte[] head = ("HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: " + body.length
                + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(head, body)).addListener(ChannelFutureListener.CLOSE);
    }
}
