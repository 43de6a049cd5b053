package agents

import (
	"flag"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

var update = flag.Bool("u", false, "update the transcript fixtures the real CLIs write")

func TestMain(m *testing.M) { harness.Main(m) }
