package io.hbmledger.collect.ssh;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP relay on 127.0.0.1 in front of the test's sshd that never passes a connection's end on:
 * when the client side goes away (the collector was killed), the sshd side stays open, as when the
 * network between collector and host drops and no FIN or RST reaches the host. The remote guards
 * and wrappers then never see their channel close, which is what a resume has to clean up after.
 */
final class HeldLink implements AutoCloseable {

    final int port;
    private final ServerSocket server;
    private final int target;
    private final List<Socket> sockets = new ArrayList<>();

    HeldLink(int target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.port = server.getLocalPort();
        Thread t = new Thread(this::accept, "held-link-" + port);
        t.setDaemon(true);
        t.start();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
                synchronized (sockets) {
                    sockets.add(client);
                    sockets.add(upstream);
                }
                pump(client.getInputStream(), upstream.getOutputStream());
                pump(upstream.getInputStream(), client.getOutputStream());
            } catch (IOException closed) {
                return;
            }
        }
    }

    /** Copies until either side fails, then stops copying and closes nothing. */
    private static void pump(InputStream in, OutputStream out) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 * 1024];
            try {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException gone) {
                // the end is held: nothing is closed here
            }
        }, "held-link-pump");
        t.setDaemon(true);
        t.start();
    }

    /** Ends every connection (the network is back and the host sees the ends). */
    @Override
    public void close() throws IOException {
        server.close();
        synchronized (sockets) {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }
}
