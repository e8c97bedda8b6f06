package dev.spindle.netty;

import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import java.nio.ByteBuffer;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The whole pipeline of a connection the server will not serve (beyond
 * {@link ServerConfig#maxConnections()}, or while closing; or plain HTTP on a TLS port): the core's
 * {@link Connection#rejecting rejecting connection} decides everything, this handler only moves
 * its bytes. It writes the 503, shuts the output down, reads and drops what the peer still sends
 * (so unread input does not turn the close into a reset that destroys the 503), and closes when
 * the core says so: at the peer's end of input, or when its linger time or byte budget is spent.
 */
final class Rejecting extends ChannelInboundHandlerAdapter {
    private static final long TICK_MILLIS = 250;

    private final Connection connection;
    private ScheduledFuture<?> ticker;
    private ChannelFuture lastWrite;
    private boolean outputShut;
    private boolean closed;

    Rejecting(ServerConfig config, String message) {
        this(config, 503, message);
    }

    Rejecting(ServerConfig config, int status, String message) {
        this.connection = Connection.rejecting(config, status, message);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        // added later to a live connection (plain HTTP on a TLS port): there will be no channelActive
        if (ctx.channel().isActive()) {
            begin(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        begin(ctx);
        ctx.fireChannelActive();
    }

    private void begin(ChannelHandlerContext ctx) {
        if (ticker != null) {
            return;
        }
        ticker = ctx.executor().scheduleWithFixedDelay(() -> {
            connection.tick(System.nanoTime());
            drive(ctx);
        }, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        drive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            connection.received(buf.nioBuffer());
        } finally {
            buf.release();
        }
        drive(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            connection.endOfInput();
            drive(ctx);
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed = true;
        if (ticker != null) {
            ticker.cancel(false);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }

    private void drive(ChannelHandlerContext ctx) {
        if (closed) {
            return;
        }
        Next next = connection.next();
        while (next.writes()) {
            ByteBuffer out = connection.outbound();
            int n = out.remaining();
            lastWrite = ctx.writeAndFlush(Unpooled.copiedBuffer(out));
            next = connection.written(n);
        }
        if (next == Next.CLOSE) {
            closed = true;
            afterWrites(ctx, ChannelFutureListener.CLOSE);
        } else if (next == Next.LINGER && !outputShut) {
            outputShut = true;
            afterWrites(ctx, f -> ((DuplexChannel) ctx.channel()).shutdownOutput());
        }
    }

    private void afterWrites(ChannelHandlerContext ctx, ChannelFutureListener then) {
        (lastWrite != null ? lastWrite : ctx.newSucceededFuture()).addListener(then);
    }
}
