package transcript

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestScanHeadAgreesWithJSON: on every record of the fixtures, scanHead
// reads what encoding/json reads; on every prefix of them, it returns
// without panicking.
func TestScanHeadAgreesWithJSON(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, maxLine)
		for sc.Scan() {
			line := sc.Bytes()
			var want head
			wantOK := json.Unmarshal(line, &want) == nil
			if wantOK {
				// What the first pass wants of the content.
				var c struct {
					Message struct {
						Content json.RawMessage `json:"content"`
					} `json:"message"`
				}
				json.Unmarshal(line, &c)
				want.Message.Content = promptClass{}
				if len(c.Message.Content) > 0 {
					want.Message.Content.scan(c.Message.Content)
				}
			}
			var got head
			gotOK := scanHead(line, &got)
			if gotOK != wantOK || wantOK && !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: scanHead = %v %+v, json = %v %+v\nline: %.200s", name, gotOK, got, wantOK, want, line)
			}
			for i := 0; i < len(line); i += 1 + len(line)/500 {
				scanHead(line[:i], &head{})
			}
		}
		f.Close()
	}
}
