package localstack

import (
	"errors"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/app"
)

// TestStartStop starts a DynamoDB Local of its own, whatever DYNAMODB_ENDPOINT says, to see that Stop
// leaves nothing behind.
func TestStartStop(t *testing.T) {
	t.Parallel()
	start := time.Now()
	db, err := StartDynamoDB(t.Context(), testRoot(t), 0)
	NeedInstalled(t, err)
	t.Logf("started in %v at %s", time.Since(start), db.Endpoint())
	t.Cleanup(func() { _ = db.Stop() })

	if got, want := db.Endpoint(), "http://127.0.0.1:"+strconv.Itoa(db.Port()); got != want {
		t.Errorf("Endpoint() = %q, want %q", got, want)
	}
	client, err := app.NewDynamoDB(t.Context(), db.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.ListTables(t.Context(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("ListTables: %v", err)
	}

	pid := db.cmd.Process.Pid
	if err := db.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := db.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	// The process group is gone: signal 0 reaches no process in it.
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(-%d, 0) after Stop = %v, want ESRCH", pid, err)
	}
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(db.Port()), time.Second)
	if err == nil {
		conn.Close()
		t.Errorf("port %d still answers after Stop", db.Port())
	}
}

func TestStartDynamoDBPortTaken(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	db, err := StartDynamoDB(t.Context(), testRoot(t), port)
	if err == nil {
		_ = db.Stop()
		t.Fatalf("StartDynamoDB on taken port %d: got nil error", port)
	}
	t.Log(err)
}

// A DynamoDB Local on disk, killed with SIGKILL and started again on the same port and directory, still
// has the table written before the kill: what the chaos run relies on.
func TestOnDiskOutlivesAKill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := StartDynamoDBOnDisk(t.Context(), testRoot(t), 0, dir)
	NeedInstalled(t, err)
	t.Cleanup(func() { _ = db.Stop() })
	client, err := app.NewDynamoDB(t.Context(), db.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	if err := CreateTable(t.Context(), client, testRoot(t), "kept", WithoutStream()); err != nil {
		t.Fatal(err)
	}
	pid := db.cmd.Process.Pid
	if err := db.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("kill(-%d, 0) after Kill = %v, want ESRCH", pid, err)
	}
	again, err := StartDynamoDBOnDisk(t.Context(), testRoot(t), db.Port(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = again.Stop() })
	out, err := client.ListTables(t.Context(), &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.TableNames) != 1 || out.TableNames[0] != "kept" {
		t.Errorf("tables after the restart: %v, want [kept]", out.TableNames)
	}
}
