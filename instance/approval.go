package instance

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/untrusted"
)

// ApprovalFile names the record, in an instance, of the environment the user
// approved for the project. The instance is writable from inside the
// sandbox, so the record is signed with a key the sandbox never sees:
// forged or damaged, it counts as no approval, and the user is asked again.
const ApprovalFile = "env-approved"

// approvalKey is the signing key, kept in the state directory outside every
// instance.
const approvalKey = "approval.key"

// approvalLimit is the most of an approval record claudebox reads: one
// line per variable, mount and option a project adds, and the signature.
const approvalLimit = 1 << 20

// ReadApproval returns the approved lines of an instance, or nil when
// there is no valid record.
func ReadApproval(stateDir, dir string) []string {
	key, err := untrusted.ReadFile(stateDir, approvalKey, 32)
	if err != nil {
		return nil
	}
	b, err := untrusted.ReadFile(dir, ApprovalFile, approvalLimit)
	if err != nil {
		return nil
	}
	body, mac, ok := bytes.Cut(b, []byte("mac "))
	if !ok || !hmac.Equal(bytes.TrimSpace(mac), []byte(sign(key, dir, body))) {
		return nil
	}
	return strings.Fields(string(body))
}

// WriteApproval records lines as approved for the instance in dir.
func WriteApproval(stateDir, dir string, lines []string) error {
	key, err := loadKey(stateDir)
	if err != nil {
		return err
	}
	var body []byte
	for _, l := range lines {
		body = append(body, l+"\n"...)
	}
	return untrusted.WriteFile(dir, ApprovalFile, append(body, "mac "+sign(key, dir, body)+"\n"...), 0o600)
}

// sign binds the record to its instance, so that it cannot be copied to
// another.
func sign(key []byte, dir string, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(filepath.Base(dir) + "\n"))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

func loadKey(stateDir string) ([]byte, error) {
	if key, err := untrusted.ReadFile(stateDir, approvalKey, 32); err == nil && len(key) == 32 {
		return key, nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, untrusted.ErrTooLarge) {
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return key, untrusted.WriteFile(stateDir, approvalKey, key, 0o600)
}
