package undo

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// walkStatuses is what a walk of the checkout read of each entry's status,
// for the exit audit (audit.Statuses): its judgement of installed
// dependencies reads the status of every entry of node_modules, as this
// walk did just before.
type walkStatuses struct {
	t     tree
	since time.Time
	// sorted builds, once asked, the paths of the changed entries and of
	// what the walk did not read, each sorted.
	sorted func() sortedStatuses
}

type sortedStatuses struct {
	// changed are the files, links and directories whose status changed
	// since the start; unread, the paths whose entries the walk did not
	// read (stand-ins, directories not read in full, repositories' git
	// directories below the top).
	changed, unread []string
}

func newWalkStatuses(t tree, since time.Time) *walkStatuses {
	s := &walkStatuses{t: t, since: since}
	s.sorted = sync.OnceValue(func() sortedStatuses {
		var o sortedStatuses
		for path := range t.recent {
			o.changed = append(o.changed, path)
		}
		for dir, names := range t.dirs {
			if names != nil && dir != "." {
				o.changed = append(o.changed, dir)
			}
		}
		o.unread = append(o.unread, t.skip...)
		for dir := range t.repos {
			o.unread = append(o.unread, dir+"/.git")
		}
		slices.Sort(o.changed)
		slices.Sort(o.unread)
		return o
	})
	return s
}

func (s *walkStatuses) Since() time.Time { return s.since }

// ChangedBelow counts the entries at rel and below it that changed; ok is
// false where the walk did not read each one's status: past its bound
// (it then kept no record of some directories), or where something at,
// above or below rel was not read.
func (s *walkStatuses) ChangedBelow(rel string) (int, bool) {
	if s.t.cut || rel == "." || rel == "" {
		return 0, false
	}
	o := s.sorted()
	for _, u := range o.unread {
		if u == "." || u == rel || strings.HasPrefix(rel, u+"/") {
			return 0, false
		}
	}
	if within(o.unread, rel) > 0 || within(s.t.unstatted, rel) > 0 {
		return 0, false
	}
	return within(o.changed, rel), true
}

// within counts the paths of sorted that are rel or lie below it: those
// below it are together in sorted, right after rel's place.
func within(sorted []string, rel string) int {
	n := 0
	i := sort.SearchStrings(sorted, rel)
	if i < len(sorted) && sorted[i] == rel {
		n++
	}
	from := sort.SearchStrings(sorted, rel+"/")
	to := sort.SearchStrings(sorted, rel+"0") // '0' follows '/'
	return n + to - from
}
