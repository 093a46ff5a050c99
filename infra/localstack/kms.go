package localstack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// KMS is a running local KMS emulator (github.com/nsmithuk/local-kms): the AWS KMS API on Endpoint, with
// one symmetric key, KeyID, seeded at start with key material generated for this run. Its keys live in a
// temporary directory that Stop removes, as DynamoDB Local's in-memory tables go with it. Stop it when done.
type KMS struct {
	*process
	port int
	dir  string
}

// localKeyID is the id of the seeded key. A fixed id is harmless: each emulator has its own key material,
// made at its start, so nothing sealed under one run's key opens under another's.
const localKeyID = "6c6f6361-6c00-4000-8000-67696674730a"

// KeyID returns the ARN of the emulator's key (KMS_KEY_ID), as a deployment names its key.
func (k *KMS) KeyID() string {
	return "arn:aws:kms:us-east-1:111122223333:key/" + localKeyID
}

// Endpoint returns the URL KMS clients reach it at (KMS_ENDPOINT), http://127.0.0.1:PORT.
func (k *KMS) Endpoint() string {
	return "http://127.0.0.1:" + strconv.Itoa(k.port)
}

// Stop ends the emulator and removes its keys.
func (k *KMS) Stop() error {
	err := k.process.Stop()
	if rmErr := os.RemoveAll(k.dir); err == nil {
		err = rmErr
	}
	return err
}

// kmsBinary returns the emulator as `make tools` installs it under root/.tools/bin.
func kmsBinary(root string) (string, error) {
	bin := filepath.Join(root, ".tools", "bin", "local-kms")
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("the local KMS emulator (no %s): %w", bin, ErrNotInstalled)
	}
	return bin, nil
}

// StartKMS starts the local KMS emulator under root/.tools on port (0 picks a free one) with a new key,
// and returns once the key answers DescribeKey, within about 30 seconds. ctx bounds the start only. Like
// the other emulators it lives in its own process group and, on Linux, dies with its caller.
func StartKMS(ctx context.Context, root string, port int) (*KMS, error) {
	bin, err := kmsBinary(root)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	return startOnPort(port, func(port int) (*KMS, error) { return startKMS(ctx, bin, port) })
}

// startKMS seeds a new key into a new directory, starts the emulator on port and waits for the key.
func startKMS(ctx context.Context, bin string, port int) (*KMS, error) {
	dir, err := os.MkdirTemp("", "local-kms-*")
	if err != nil {
		return nil, fmt.Errorf("local KMS directory: %w", err)
	}
	material := make([]byte, 32)
	if _, err := rand.Read(material); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	seed := fmt.Sprintf("Keys:\n  Symmetric:\n    Aes:\n      - Metadata:\n          KeyId: %s\n          Description: sealed secrets (local)\n        BackingKeys:\n          - %s\nAliases:\n  - AliasName: alias/gift-campaigns-local-secrets\n    TargetKeyId: %s\n",
		localKeyID, hex.EncodeToString(material), localKeyID)
	seedPath := filepath.Join(dir, "seed.yaml")
	if err := os.WriteFile(seedPath, []byte(seed), 0o600); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port), "KMS_ACCOUNT_ID=111122223333", "KMS_REGION=us-east-1",
		"KMS_SEED_PATH="+seedPath, "KMS_DATA_PATH="+filepath.Join(dir, "data"))
	p, err := startProcess("local KMS", cmd)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	k := &KMS{process: p, port: port, dir: dir}
	if err := k.waitReady(ctx); err != nil {
		tail := k.logTail()
		_ = k.Stop()
		return nil, fmt.Errorf("start the local KMS on port %d: %w%s", port, err, tail)
	}
	return k, nil
}

// waitReady polls DescribeKey of the seeded key until it answers, the process exits, or ctx ends.
func (k *KMS) waitReady(ctx context.Context) error {
	return k.process.waitReady(ctx, "DescribeKey", k.describeKey)
}

// describeKey calls the KMS API's DescribeKey on the seeded key, as the AWS SDK would, without linking
// the KMS client into every user of this package.
func (k *KMS) describeKey(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, k.Endpoint()+"/", strings.NewReader(`{"KeyId":"`+localKeyID+`"}`))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	req.Header.Set("X-Amz-Target", "TrentService.DescribeKey")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("DescribeKey: %s", resp.Status)
	}
	return nil
}
