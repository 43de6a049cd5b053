package hostcmdslate

import (
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }
