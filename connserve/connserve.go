// Package connserve serves a listener's connections, a bounded number at
// once, each in a goroutine of its own, until Close: the agents' filters
// (SSH, gpg) the supervisor serves the sandbox share it.
package connserve

import (
	"errors"
	"net"
	"sync"
	"time"
)

// Server serves the connections of a listener.
type Server struct {
	ln     net.Listener
	serve  func(net.Conn)
	slots  chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]bool
	closed bool
}

// Serve serves ln's connections with serve, at most max at once: one
// beyond is closed at once, so a sandbox that holds them all stalls only
// itself. It returns at once; Close stops it.
func Serve(ln net.Listener, max int, serve func(net.Conn)) *Server {
	s := &Server{ln: ln, serve: serve, slots: make(chan struct{}, max), conns: map[net.Conn]bool{}}
	s.wg.Add(1)
	go s.accept()
	return s
}

// Close stops accepting, ends the connections being served and waits for
// them.
func (s *Server) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			// Out of descriptors, for one: the next may work.
			time.Sleep(10 * time.Millisecond)
			continue
		}
		select {
		case s.slots <- struct{}{}:
		default:
			c.Close()
			continue
		}
		if !s.track(c) {
			<-s.slots
			c.Close()
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { <-s.slots }()
			defer s.untrack(c)
			s.serve(c)
		}()
	}
}

// track records c, to be ended by Close; false once Close has run.
func (s *Server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = true
	return true
}

func (s *Server) untrack(c net.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	c.Close()
}
