package dev.spindle.netty;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;

/**
 * The first handler of the pipeline: lets a {@code read()} reach the transport only while
 * {@code autoRead} is on. {@link RouterHandler} turns {@code autoRead} off to stop reading (the
 * peer does not read its responses, or a blocking route runs), but {@link
 * io.netty.handler.codec.http.HttpObjectAggregator} and the codec's decoder call {@code read()}
 * themselves when {@code autoRead} is off and a message is half done (Netty issue 6583): without
 * this gate a client that pipelines large requests and never reads would have each of them read,
 * aggregated and answered into an outbound buffer that never drains. Turning {@code autoRead} back
 * on issues a read of its own, which passes.
 */
@ChannelHandler.Sharable
final class ReadGate extends ChannelOutboundHandlerAdapter {
    static final ReadGate INSTANCE = new ReadGate();

    private ReadGate() {
    }

    @Override
    public void read(ChannelHandlerContext ctx) {
        if (ctx.channel().config().isAutoRead()) {
            ctx.read();
        }
    }
}
