package dbtest

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// BlackHole is a TCP proxy on 127.0.0.1 that can go silent as a network
// that drops every packet does: nothing is forwarded either way, and a side
// that closes its end is not told to the other (no FIN or reset crosses
// it, unlike slurmtest.Proxy, which passes closes on). Connections live
// until the test ends.
type BlackHole struct {
	addr   string
	silent atomic.Bool
	mu     sync.Mutex
	conns  []net.Conn
}

// NewBlackHole starts a BlackHole to target ("host:port"), forwarding
// until Silence; it is closed when the test ends.
func NewBlackHole(t testing.TB, target string) *BlackHole {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &BlackHole{addr: ln.Addr().String()}
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.conns {
			c.Close()
		}
	})
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			go p.pipe(out, in)
			go p.pipe(in, out)
		}
	}()
	return p
}

// Addr is the proxy's host:port, to put in a database URL instead of the
// server's.
func (p *BlackHole) Addr() string { return p.addr }

// Silence stops forwarding, in both directions, closing nothing.
func (p *BlackHole) Silence() { p.silent.Store(true) }

// Restore forwards again (what was swallowed is lost, as on a network).
func (p *BlackHole) Restore() { p.silent.Store(false) }

// pipe copies src to dst while not silent; an end of src is passed on
// (closing dst) only while not silent.
func (p *BlackHole) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.silent.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if !p.silent.Load() {
				dst.Close()
			}
			return
		}
	}
}
