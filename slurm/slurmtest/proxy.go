package slurmtest

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy is a TCP proxy in front of a real slurmrestd that a test can take
// down and bring back, to prove the client's retries and the daemon's
// recovery without stopping the shared slurmrestd other tests use. Down
// closes the listener (new connections are refused, as when slurmrestd is
// stopped) and cuts the connections in flight; Up listens again on the same
// address. Stall turns it into a black hole: connections stay open, bytes
// sent are swallowed, nothing comes back (a network that drops packets).
// It is plain TCP, so tests put it in front of Postgres too (Addr).
type Proxy struct {
	// URL is http://ADDR, to use instead of the real slurmrestd's URL.
	URL    string
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]bool
	t      testing.TB
	stall  atomic.Bool
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.addr }

// Stall swallows everything from now on, in both directions, without
// closing anything.
func (p *Proxy) Stall() { p.stall.Store(true) }

// copyUnlessStalled copies src to dst, dropping what arrives while stalled.
func (p *Proxy) copyUnlessStalled(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.stall.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// NewProxy starts a proxy to target ("host:port") on a free local port; it
// is closed when the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	p := &Proxy{target: target, conns: map[net.Conn]bool{}, t: t}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy: %v", err)
	}
	p.addr, p.URL = ln.Addr().String(), "http://"+ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.Down)
	return p
}

// Down refuses new connections and cuts the open ones.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// Up accepts connections again on the same address.
func (p *Proxy) Up() {
	p.t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("proxy up: %v", err)
	}
	p.serve(ln)
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(in)
		}
	}()
}

func (p *Proxy) pipe(in net.Conn) {
	out, err := net.Dial("tcp", p.target)
	if err != nil {
		in.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // went down meanwhile
		p.mu.Unlock()
		in.Close()
		out.Close()
		return
	}
	p.conns[in], p.conns[out] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { p.copyUnlessStalled(out, in); done <- struct{}{} }()
	go func() { p.copyUnlessStalled(in, out); done <- struct{}{} }()
	<-done
	in.Close()
	out.Close()
	p.mu.Lock()
	delete(p.conns, in)
	delete(p.conns, out)
	p.mu.Unlock()
}
