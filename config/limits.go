package config

import (
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/limits"
	"github.com/claudebox/claudebox/printable"
)

// limits applies a layer's memory, cpus and pids; 0 sets no bound.
func (m *merging) limits(l layer) error {
	if l.Memory != nil {
		n, ok := limits.ParseSize(*l.Memory)
		if !ok {
			return hint.Errorf(`write a size in bytes, or with K, M, G or T: "8G"`, "%s: memory: \"%s\" is not a size", where(l.from), printable.Excerpt(*l.Memory))
		}
		m.out.Limits.Memory = n
	}
	for _, c := range []struct {
		key string
		set *int
		to  *int
	}{{"cpus", l.CPUs, &m.out.Limits.CPUs}, {"pids", l.Pids, &m.out.Limits.Tasks}} {
		if c.set == nil {
			continue
		}
		if *c.set < 0 {
			return hint.Errorf(c.key+" = 0 sets no bound", "%s: %s: %d is negative", where(l.from), c.key, *c.set)
		}
		*c.to = *c.set
	}
	return nil
}
