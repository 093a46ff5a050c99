package dynamo

import (
	"context"
	"sync"

	"github.com/giftcampaign/service/shared/wallet"
)

// walletLocks serializes the balance changes of each wallet within this
// process, and remembers the balance the last change wrote: the wallet's
// Hold (see wallet.Hold for why). Without it 200 add-recipients at once
// took minutes on DynamoDB Local. It lives in the store because every
// change of a wallet in the process, whichever use case makes it, goes
// through the one Store.
type walletLocks struct {
	mu    sync.Mutex
	locks map[string]*walletLock
}

// walletLock is the lock of one wallet. hold is guarded by holding sem.
type walletLock struct {
	sem  chan struct{}
	refs int // guarded by walletLocks.mu
	hold wallet.Hold
}

// acquire waits for org's wallet, or for ctx to end.
func (w *walletLocks) acquire(ctx context.Context, org string) (*walletLock, error) {
	w.mu.Lock()
	if w.locks == nil {
		w.locks = map[string]*walletLock{}
	}
	l := w.locks[org]
	if l == nil {
		l = &walletLock{sem: make(chan struct{}, 1)}
		w.locks[org] = l
	}
	l.refs++
	w.mu.Unlock()
	select {
	case l.sem <- struct{}{}:
		return l, nil
	case <-ctx.Done():
		w.drop(org, l)
		return nil, ctx.Err()
	}
}

// release lets the next change of org's wallet go.
func (w *walletLocks) release(org string, l *walletLock) {
	<-l.sem
	w.drop(org, l)
}

// drop forgets a wallet nobody waits for, so the map stays as small as the
// number of wallets in use.
func (w *walletLocks) drop(org string, l *walletLock) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if l.refs--; l.refs == 0 {
		delete(w.locks, org)
	}
}
