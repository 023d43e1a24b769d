package io.lmwarden.router.cluster;

import org.jgroups.JChannel;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;

/** Builds the JGroups channel the routers' caches travel on, from {@link ClusterSettings}. */
final class JGroupsStack {

    private JGroupsStack() {
    }

    static JChannel channel(ClusterSettings s) {
        String xml;
        try (InputStream in = JGroupsStack.class.getResourceAsStream("jgroups-tcp.xml")) {
            xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("the router's JGroups stack (jgroups-tcp.xml) is missing from the jar", e);
        }
        xml = xml.replace("@BIND@", s.bind()).replace("@PORT@", Integer.toString(s.port())).replace("@DISCOVERY@", discovery(s));
        try {
            JChannel ch = new JChannel(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
            ch.name(s.bind() + ":" + s.port());
            return ch;
        } catch (Exception e) {
            throw new IllegalStateException("cannot build the cluster channel on " + s.bind() + ":" + s.port() + ": " + e.getMessage(), e);
        }
    }

    static String discovery(ClusterSettings s) {
        ClusterSettings.Discovery d = s.discovery().orElseThrow();
        if (d instanceof ClusterSettings.Dns dns) {
            // A headless Service's A records are the pods; each is probed on the transport's own port.
            return "<dns.DNS_PING dns_query=\"" + escape(dns.query()) + "\" dns_record_type=\"A\"/>";
        }
        ClusterSettings.Static st = (ClusterSettings.Static) d;
        String hosts = st.hostPorts().stream().map(h -> {
            int colon = h.lastIndexOf(':');
            return h.substring(0, colon) + "[" + h.substring(colon + 1) + "]";
        }).collect(Collectors.joining(","));
        return "<TCPPING initial_hosts=\"" + escape(hosts) + "\" port_range=\"0\"/>";
    }

    private static String escape(String v) {
        return v.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;");
    }
}
