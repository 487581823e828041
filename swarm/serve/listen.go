package serve

import (
	"net"
	"net/url"
)

// Loopback says whether addr (host:port) is reached from this machine alone.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ExposedWarning is the one line said of a server that others reach without TLS ("" for
// one that is fine).
func ExposedWarning(addr string, tls bool) string {
	if tls || Loopback(addr) {
		return ""
	}
	return "swarm serve: warning: " + addr + " is reached from other machines, and without TLS the token and everything shown cross the network in the clear: give --tls-cert and --tls-key, or listen on 127.0.0.1 and reach it through an SSH tunnel or a tailnet (swarm guide serve)"
}

// LoginURL is the link that logs a browser in; a server on every address is shown at
// 127.0.0.1.
func LoginURL(addr string, tls bool, token string) string {
	host, port, err := net.SplitHostPort(addr)
	if err == nil {
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
	}
	u := url.URL{Scheme: "http", Host: addr, Path: "/login", RawQuery: url.Values{"token": {token}}.Encode()}
	if tls {
		u.Scheme = "https"
	}
	return u.String()
}
