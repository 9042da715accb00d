#!/usr/bin/env python3
"""An independent card-terminal peer for till's pipe transport: not till's simulator, written from the protocol pages.

It reads request URLs, one a line, on standard input and writes callback URLs, one a line, on standard output. It
keeps its own ledger of what it charged (PEER_LEDGER, JSON), written before each answer goes out, so that a test can
hold till's reports and exports against it. It misbehaves as terminals and bridges do, from a seeded generator
(PEER_SEED): before the real answer it may send a failure that names no payment, an approval for another payment, or
a repeat of an earlier answer. The real answer always carries the request's client transaction id where the request
had one. PEER_CALM=1 turns the misbehaviour off.

PEER_PLAN sets when a sale's answers come (issue 33's timings), for the bridge of one till command:
  correct   a sale its rule declines is charged after all: the decline at once, its own approval 1.5 s later
            (a card reader's decline that the host overturns);
  late      every answer PEER_LATE seconds (default 6) after its request, after the command gave up waiting;
  twice     the sale's answer, and the same answer again 1 s later.
An answer still waiting when till stops the bridge (its standard input closed, or SIGTERM) is kept in a spool beside
the ledger and written first by the next bridge, before it reads any request: a bridge that re-delivers what it could
not deliver, as real ones do. The ledger records the charge when the terminal decides it, delivered or not.

Each till process starts its own bridge, so all state lives in the ledger file and the spool.
"""
import json
import os
import random
import signal
import sys
import threading
import time
import urllib.parse

LEDGER = os.environ["PEER_LEDGER"]
SPOOL = LEDGER + ".spool"
CALM = os.environ.get("PEER_CALM") == "1"
PLAN = os.environ.get("PEER_PLAN", "")
LATE = float(os.environ.get("PEER_LATE", "6"))
CALLBACK = "interapp-callback://result?"
lock = threading.RLock()   # re-entered by a signal handler that runs while the main thread holds it
waiting = []   # (due, line): answers to write later


def load():
    try:
        with open(LEDGER) as f:
            return json.load(f)
    except FileNotFoundError:
        return {"next": 1, "draws": 0, "transactions": [], "answers": [], "batch": None}


def save(ledger):
    tmp = LEDGER + ".tmp"
    with open(tmp, "w") as f:
        json.dump(ledger, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, LEDGER)


def url(fields):
    return CALLBACK + "&".join(k + "=" + urllib.parse.quote(str(v), safe="") for k, v in fields)


def emit(line):
    with lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def later(delay, line):
    with lock:
        waiting.append((time.time() + delay, line))


def deliver():
    """Writes each waiting answer when it is due."""
    while True:
        now = time.time()
        with lock:
            due = sorted(w for w in waiting if w[0] <= now)
            for w in due:
                waiting.remove(w)
        for _, line in due:
            try:
                emit(line)
            except (BrokenPipeError, OSError):
                spool([line])
        time.sleep(0.02)


def spool(lines):
    with open(SPOOL, "a") as f:
        for line in lines:
            f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())


stopping = threading.Lock()


def stop(*_):
    """Stopped by till: what was not delivered goes to the spool, for the next bridge. Once: a SIGTERM that comes
    while the end of input is being handled (the handler runs in the same thread) leaves that stop to finish."""
    if not stopping.acquire(blocking=False):
        return
    with lock:
        spool([line for _, line in sorted(waiting)])
        waiting.clear()
    os._exit(0)


def new_id(ledger, prefix):
    n = ledger["next"]
    ledger["next"] = n + 1
    return n, "%s-%08d-0000-4000-8000-%012d" % (prefix, n, n)


def rng(ledger):
    # One generator a request, seeded by the run's seed and how many requests came before (across processes).
    ledger["draws"] += 1
    return random.Random("%s-%d" % (os.environ.get("PEER_SEED", "1"), ledger["draws"]))


def misbehave(ledger, r, action, amount):
    """Stray lines before the real answer."""
    if CALM:
        return []
    out = []
    roll = r.random()
    if roll < 0.25:
        out.append(url([("status", "fail"), ("message", "(-12) TRANSACTION_DECLINED_BY_SERVER"), ("action", action),
                        ("amount", amount)]))
    elif roll < 0.40 and ledger["answers"]:
        out.append(r.choice(ledger["answers"]))
    elif roll < 0.50:
        out.append(url([("status", "success"), ("message", "Transaction successful."), ("action", action),
                        ("clientTransactionId", "someone-else-%d" % r.randrange(10**6)), ("amount", amount),
                        ("tipAmount", 0), ("referenceNumber", "%06d" % r.randrange(10**6)),
                        ("transactionId", "stray-%d" % r.randrange(10**9))]))
    return out


def sale(ledger, q):
    r = rng(ledger)
    amount = int(q.get("amount", "0"))
    tip = int(q.get("tipAmount", "0") or 0)
    ctid = q.get("clientTransactionId", "")
    n, txid = new_id(ledger, "aaaaaaaa")
    approved = amount % 7 != 0
    overturned = PLAN == "correct" and not approved
    approved = approved or overturned
    t = {"ctid": ctid, "stan": "%06d" % n, "transactionId": txid, "orderCode": "%016d" % (7000000000000000 + n),
         "amount": amount, "tip": tip, "approved": approved, "refunded": 0, "kind": "sale"}
    ledger["transactions"].append(t)
    fields = [("status", "success" if approved else "fail"),
              ("message", "Transaction successful." if approved else "(-12) TRANSACTION_DECLINED_BY_SERVER"),
              ("action", "sale"), ("clientTransactionId", ctid), ("amount", amount), ("tipAmount", tip),
              ("referenceNumber", t["stan"] if approved else ""), ("orderCode", t["orderCode"]),
              ("transactionId", txid if approved else ""), ("cardType", "Visa Credit"),
              ("accountNumber", "478*********7417"), ("verificationMethod", "CONTACTLESS")]
    answer = url(fields)
    stray = misbehave(ledger, r, "sale", amount)
    if approved:
        ledger["answers"].append(answer)
    if overturned:
        declined = url([("status", "fail"), ("message", "(-12) TRANSACTION_DECLINED_BY_SERVER"), ("action", "sale"),
                        ("clientTransactionId", ctid), ("amount", amount), ("tipAmount", tip)])
        later(1.5, answer)
        return stray + [declined]
    if PLAN == "twice":
        later(1.0, answer)
    return stray + [answer]


def refund(ledger, q):
    r = rng(ledger)
    stan = q.get("referenceNumber", "")
    sold = [t for t in ledger["transactions"] if t["kind"] == "sale" and t["approved"] and t["stan"] == stan]
    left = (sold[0]["amount"] + sold[0]["tip"] - sold[0]["refunded"]) if sold else 0
    want = int(q["amount"]) if q.get("amount") else left
    stray = misbehave(ledger, r, "cancel", want)
    if not sold or want <= 0 or want > left:
        return stray + [url([("status", "fail"), ("message", "(-12) TRANSACTION_DECLINED_BY_SERVER"), ("action", "cancel"),
                             ("amount", want)])]
    n, txid = new_id(ledger, "bbbbbbbb")
    sold[0]["refunded"] += want
    ledger["transactions"].append({"ctid": "", "stan": "%06d" % n, "transactionId": txid, "amount": want, "tip": 0,
                                   "approved": True, "refunded": 0, "kind": "refund", "of": stan})
    answer = url([("status", "success"), ("message", "Transaction successful."), ("action", "cancel"), ("amount", want),
                  ("referenceNumber", "%06d" % n), ("orderCode", "%016d" % (8000000000000000 + n)),
                  ("transactionId", txid), ("cardType", "Visa Credit"), ("accountNumber", "478*********7417")])
    ledger["answers"].append(answer)
    return stray + [answer]


def batch(ledger, q):
    command = q.get("command", "")
    if command == "open":
        n, bid = new_id(ledger, "cccccccc")
        ledger["batch"] = {"id": bid, "name": q.get("batchName") or "batch %d" % n}
        b = ledger["batch"]
        return [url([("status", "success"), ("message", "Batch opened"), ("action", "batch"), ("command", "open"),
                     ("batchName", b["name"]), ("batchId", b["id"])])]
    b = ledger["batch"] or {"id": "", "name": ""}
    ledger["batch"] = None
    return [url([("status", "success"), ("message", "Batch closed"), ("action", "batch"), ("command", "close"),
                 ("batchName", b["name"]), ("batchId", b["id"])])]


def details(ledger, q):
    ctid = q.get("clientTransactionId", "")
    found = [t for t in ledger["transactions"] if t["ctid"] == ctid and ctid]
    if not found:
        # As an independent peer answers: no reference to the look-up it answers.
        return [url([("status", "fail"), ("message", "(-99) NOT_FOUND"), ("action", "transactionDetails")])]
    t = found[0]
    return [url([("status", "success"), ("message", "Transaction Details Fetched"), ("action", "transactionDetails"),
                 ("clientTransactionId", ctid), ("amount", t["amount"]), ("tipAmount", t["tip"]),
                 ("referenceNumber", t["stan"]), ("transactionId", t["transactionId"]),
                 ("transactionStatus", "success" if t["approved"] else "fail")])]


def main():
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    try:
        with open(SPOOL) as f:
            kept = [line.strip() for line in f if line.strip()]
        os.unlink(SPOOL)
    except FileNotFoundError:
        kept = []
    for line in kept:
        emit(line)
    threading.Thread(target=deliver, daemon=True).start()
    for line in sys.stdin:
        line = line.strip()
        if not line or "?" not in line:
            continue
        q = dict(urllib.parse.parse_qsl(line.split("?", 1)[1], keep_blank_values=True))
        ledger = load()
        action = q.get("action", "")
        if action == "sale":
            out = sale(ledger, q)
        elif action == "cancel":
            out = refund(ledger, q)
        elif action == "batch":
            out = batch(ledger, q)
        elif action == "transactionDetails":
            out = details(ledger, q)
        elif action == "abort":
            out = [url([("status", "fail"), ("message", "(-55) NOTHING_TO_ABORT"), ("action", "ABORT")])]
        else:
            out = [url([("status", "fail"), ("message", "(-1) UNSUPPORTED"), ("action", action)])]
        save(ledger)            # charged, then answered
        for o in out:
            if PLAN == "late":
                later(LATE, o)
            else:
                emit(o)
    stop()


if __name__ == "__main__":
    main()
