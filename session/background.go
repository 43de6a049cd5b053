package session

// background is a process started beside the launch's other steps (the
// guard watcher's, whose start is not on the launch's path): taken once,
// where the launch needs it, or abandoned on the way out if never taken.
type background[P interface{ Abandon() }] struct {
	done  chan struct{}
	p     P
	err   error
	taken bool
}

// startBackground runs start beside the caller.
func startBackground[P interface{ Abandon() }](start func() (P, error)) *background[P] {
	b := &background[P]{done: make(chan struct{})}
	go func() {
		defer close(b.done)
		b.p, b.err = start()
	}()
	return b
}

// take waits until the process started, and hands it over: from here it
// is the caller's to end.
func (b *background[P]) take() (P, error) {
	<-b.done
	b.taken = true
	return b.p, b.err
}

// abandonUntaken, deferred, ends the process if it started and was never
// taken (the launch failed before it needed it).
func (b *background[P]) abandonUntaken() {
	if b.taken {
		return
	}
	<-b.done
	if b.err == nil {
		b.p.Abandon()
	}
}
