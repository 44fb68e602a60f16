package web

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"

	"github.com/rs/zerolog"
)

// ParseProxies reads the trusted reverse proxies of `--trusted-proxies`:
// addresses or CIDR prefixes (`10.0.0.5`, `10.0.0.0/24`, `::1`).
func ParseProxies(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("trusted-proxies: %q: want an IP address or a CIDR prefix (10.0.0.5, 10.0.0.0/24)", s)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// forwardedWarnings bounds the peers whose ignored forwarding headers were
// logged (each once).
const forwardedWarnings = 1024

// proxies tells a request's client: the peer, or, when the peer is a
// trusted proxy, the address it forwarded (X-Forwarded-For). Forwarding
// and identity headers from any other peer are ignored, and logged once
// per peer.
type proxies struct {
	nets       []netip.Prefix
	userHeader string // identity header ("" = none), logged when not believed
	log        zerolog.Logger

	mu     sync.Mutex
	warned map[netip.Addr]bool
}

func newProxies(nets []netip.Prefix, userHeader string, log zerolog.Logger) *proxies {
	return &proxies{nets: nets, userHeader: userHeader, log: log, warned: map[netip.Addr]bool{}}
}

func (p *proxies) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, n := range p.nets {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

// client is the request's client address and whether the request came
// from a trusted proxy. Behind trusted proxies the client is the rightmost
// X-Forwarded-For address that is not a trusted proxy itself (the
// leftmost ones are whatever the client sent, and are not believed).
func (p *proxies) client(r *http.Request) (client string, fromProxy bool) {
	peer, ok := peerAddr(r)
	if !ok {
		return r.RemoteAddr, false
	}
	if !p.trusted(peer) {
		p.ignored(r, peer)
		return peer.String(), false
	}
	hops := forwardedFor(r)
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(hops[i])
		if err != nil {
			break // a hop we cannot read: the last believed one is the client
		}
		if !p.trusted(a) {
			return a.Unmap().String(), true
		}
		peer = a
	}
	return peer.Unmap().String(), true
}

// ignored logs, once per peer, that a peer not configured as a proxy sent
// forwarding or identity headers.
func (p *proxies) ignored(r *http.Request, peer netip.Addr) {
	var sent []string
	if r.Header.Get("X-Forwarded-For") != "" {
		sent = append(sent, "X-Forwarded-For")
	}
	if p.userHeader != "" && r.Header.Get(p.userHeader) != "" {
		sent = append(sent, p.userHeader)
	}
	if len(sent) == 0 {
		return
	}
	p.mu.Lock()
	seen := p.warned[peer]
	if !seen {
		if len(p.warned) >= forwardedWarnings {
			clear(p.warned)
		}
		p.warned[peer] = true
	}
	p.mu.Unlock()
	if !seen {
		p.log.Warn().Str("peer", peer.String()).Strs("headers", sent).
			Msg("ignoring proxy headers from an address not in --trusted-proxies (logged once per address)")
	}
}

// forwardedFor is the X-Forwarded-For hops of r, in order, trimmed.
func forwardedFor(r *http.Request) []string {
	var hops []string
	for _, line := range r.Header.Values("X-Forwarded-For") {
		for _, h := range strings.Split(line, ",") {
			if h = strings.TrimSpace(h); h != "" {
				hops = append(hops, h)
			}
		}
	}
	return hops
}

// peerAddr is the request's peer IP address.
func peerAddr(r *http.Request) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	return a.Unmap(), err == nil
}
