package undo

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/claudebox/claudebox/untrusted"
)

// git gc packs what the index holds too: content the user staged and
// no commit holds may lie in a pack, which a session can remove as it
// can a loose object. So of the blobs a snapshot hashed anew that the
// project holds packed, those that HEAD does not hold at their path (a
// staged change's, not the project's history) are copied into the store
// as loose objects, up to the room a snapshot may take.

// keepPacked copies into the store each of packed (blobs the project
// holds only in its packs) that the checkout's index work names at a
// path where the tree of the project's HEAD holds another, each at most
// what budget leaves; it returns the bytes it wrote.
func (st store) keepPacked(ctx context.Context, checkout, work, gitDir, commonDir string, packed map[string]bool, budget int64) int64 {
	if len(packed) == 0 || budget <= 0 {
		return 0
	}
	head := headCommit(gitDir, commonDir)
	if head == "" {
		return 0
	}
	diff, err := st.git(ctx, checkout, work, nil, "diff-index", "--cached", "-z", "--no-renames", "--ignore-submodules", head, "--")
	if err != nil {
		return 0
	}
	var want []string
	recs := strings.Split(diff, "\x00")
	for i := 0; i+1 < len(recs); i += 2 {
		f := strings.Fields(recs[i])
		if len(f) == 5 && packed[f[3]] {
			want = append(want, f[3])
			delete(packed, f[3])
		}
	}
	if len(want) == 0 {
		return 0
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out, writer := io.Pipe()
	ended := make(chan struct{})
	go func() {
		writer.CloseWithError(st.gitTo(ctx, checkout, os.DevNull, strings.NewReader(strings.Join(want, "\n")+"\n"), writer, "cat-file", "--batch"))
		close(ended)
	}()
	defer func() {
		cancel()
		out.Close()
		<-ended
	}()
	r := bufio.NewReader(out)
	var written int64
	for range want {
		header, err := r.ReadString('\n')
		if err != nil {
			break
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			continue
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			break
		}
		if f[1] != "blob" || size > budget-written || !isObjectName(f[0]) {
			if _, err := r.Discard(int(size) + 1); err != nil {
				break
			}
			continue
		}
		if err := st.writeLoose(f[0], size, r); err != nil {
			break
		}
		written += size
		if _, err := r.Discard(1); err != nil {
			break
		}
	}
	return written
}

// writeLoose writes the blob oid, its size bytes read from r, into the
// store as a loose object (what it holds is checked, as every blob, when
// --undo reads it).
func (st store) writeLoose(oid string, size int64, r io.Reader) error {
	dir := filepath.Join(st.gitDir, "objects", oid[:2])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// git's own name for an object being written: git prune removes one
	// left behind.
	tmp, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	z := zlib.NewWriter(tmp)
	fmt.Fprintf(z, "blob %d\x00", size)
	_, err = io.CopyN(z, r, size)
	if zerr := z.Close(); err == nil {
		err = zerr
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o444)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, oid[2:]))
	}
	return err
}

// headCommit is the commit the project's HEAD names, read as git would
// (its ref loose, or in packed-refs), or "" (unborn, or a layout this
// does not read: the reftable).
func headCommit(gitDir, commonDir string) string {
	b, err := untrusted.ReadFile(gitDir, "HEAD", 4096)
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(b))
	if isObjectName(s) {
		return s
	}
	ref, ok := strings.CutPrefix(s, "ref: ")
	if !ok || !strings.HasPrefix(ref, "refs/") || !filepath.IsLocal(ref) {
		return ""
	}
	if b, err := untrusted.ReadFile(commonDir, ref, 4096); err == nil {
		if s := strings.TrimSpace(string(b)); isObjectName(s) {
			return s
		}
	}
	b, err = untrusted.ReadFile(commonDir, "packed-refs", 64<<20)
	if err != nil {
		return ""
	}
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if oid, name, ok := strings.Cut(string(line), " "); ok && name == ref && isObjectName(oid) {
			return oid
		}
	}
	return ""
}
