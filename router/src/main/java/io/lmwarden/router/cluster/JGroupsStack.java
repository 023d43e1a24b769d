package io.lmwarden.router.cluster;

import io.lmwarden.router.config.ClusterSettings;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;

/** The JGroups stack the routers' caches travel on, from {@link ClusterSettings}: TCP only, never multicast. */
final class JGroupsStack {

    private JGroupsStack() {
    }

    /** The stack as JGroups XML, which Infinispan builds its channel from. */
    static String xml(ClusterSettings s) {
        String xml;
        try (InputStream in = JGroupsStack.class.getResourceAsStream("jgroups-tcp.xml")) {
            xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("the router's JGroups stack (jgroups-tcp.xml) is missing from the jar", e);
        }
        return xml.replace("@BIND@", s.bind()).replace("@PORT@", Integer.toString(s.port())).replace("@DISCOVERY@", discovery(s));
    }

    static String discovery(ClusterSettings s) {
        ClusterSettings.Discovery d = s.discovery().orElseThrow();
        if (d instanceof ClusterSettings.Dns dns) {
            // A headless Service's A records are the pods; each is probed on the transport's own port.
            return "<dns.DNS_PING dns_query=\"" + escape(dns.query()) + "\" dns_record_type=\"A\"/>";
        }
        ClusterSettings.Static st = (ClusterSettings.Static) d;
        String hosts = st.hostPorts().stream().map(h -> ClusterSettings.Static.host(h) + "[" + ClusterSettings.Static.port(h) + "]")
                .collect(Collectors.joining(","));
        return "<TCPPING initial_hosts=\"" + escape(hosts) + "\" port_range=\"0\"/>";
    }

    private static String escape(String v) {
        return v.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;");
    }
}
