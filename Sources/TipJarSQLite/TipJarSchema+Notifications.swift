extension TipJarSchema {
    /// `v14-notifications`: the App Store Server Notifications queue (Sources/TipJar/Model/ServerNotification.swift),
    /// its attempts and its settings.
    ///
    /// The store's events are queued by triggers, so each notification commits in the same transaction as what caused
    /// it (https://www.sqlite.org/lang_createtrigger.html: a trigger's statements run as part of the statement that
    /// fired it) and a crash can never keep one without the other: a purchased transaction inserted is a
    /// `ONE_TIME_CHARGE`, a revocation set a `REFUND`, a revocation cleared a `REFUND_REVERSED`, a refund request
    /// received a `CONSUMPTION_REQUEST`, a refund request declined a `REFUND_DECLINED`. Nothing is queued while no
    /// notifications URL is set (one read of a one-row table per write). Each row keeps the transaction's changing
    /// fields as they were then, and the event's date from the store's clock.
    ///
    /// `consumption_request_reason` maps the reason the customer gave on the refund sheet to Apple's
    /// `consumptionRequestReason`
    /// (https://developer.apple.com/documentation/appstoreservernotifications/consumptionrequestreason): "the app had
    /// a problem" (`developerIssue`) is `FULFILLMENT_ISSUE`, anything else `OTHER`. Apple documents no such mapping;
    /// its sheet's own reasons are not StoreKit API.
    public static let v14 = """
        CREATE TABLE notification_settings (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            url TEXT,
            time_scale INTEGER NOT NULL DEFAULT 1 CHECK (time_scale BETWEEN 1 AND 3600000)
        );
        INSERT INTO notification_settings (id, url, time_scale) VALUES (1, NULL, 1);
        CREATE TABLE notifications (
            id INTEGER PRIMARY KEY,
            notification_type TEXT NOT NULL CHECK (notification_type IN
                ('ONE_TIME_CHARGE', 'CONSUMPTION_REQUEST', 'REFUND', 'REFUND_DECLINED', 'REFUND_REVERSED', 'TEST')),
            subtype TEXT,
            transaction_id INTEGER,
            created_at_ms INTEGER NOT NULL,
            has_snapshot INTEGER NOT NULL DEFAULT 0 CHECK (has_snapshot IN (0, 1)),
            signed_date_ms INTEGER,
            revocation_date_ms INTEGER,
            revocation_reason TEXT,
            revocation_type TEXT,
            revocation_percentage INTEGER,
            consumption_request_reason TEXT,
            test_token TEXT UNIQUE,
            notification_uuid TEXT UNIQUE,
            signed_payload TEXT,
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'delivered', 'failed')),
            attempt_count INTEGER NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
            next_attempt_ms INTEGER NOT NULL
        );
        CREATE INDEX notifications_due ON notifications (next_attempt_ms, id) WHERE state IN ('pending', 'sending');
        CREATE INDEX notifications_by_transaction ON notifications (transaction_id, id);
        CREATE INDEX notifications_by_created ON notifications (created_at_ms, id);
        CREATE TABLE notification_attempts (
            notification_id INTEGER NOT NULL REFERENCES notifications (id),
            attempt INTEGER NOT NULL,
            attempted_at_ms INTEGER NOT NULL,
            result TEXT NOT NULL,
            PRIMARY KEY (notification_id, attempt)
        ) WITHOUT ROWID;
        CREATE TRIGGER notify_one_time_charge AFTER INSERT ON transactions
        WHEN NEW.status = 'purchased' AND (SELECT url FROM notification_settings WHERE id = 1) IS NOT NULL
        BEGIN
            INSERT INTO notifications (notification_type, transaction_id, created_at_ms, has_snapshot, signed_date_ms,
                revocation_date_ms, revocation_reason, revocation_type, revocation_percentage, next_attempt_ms)
            VALUES ('ONE_TIME_CHARGE', NEW.id, NEW.purchase_date_ms, 1, NEW.signed_date_ms, NEW.revocation_date_ms,
                NEW.revocation_reason, NEW.revocation_type, NEW.revocation_percentage, NEW.purchase_date_ms);
        END;
        CREATE TRIGGER notify_refund AFTER UPDATE OF revocation_date_ms ON transactions
        WHEN OLD.revocation_date_ms IS NULL AND NEW.revocation_date_ms IS NOT NULL AND NEW.status = 'purchased'
            AND (SELECT url FROM notification_settings WHERE id = 1) IS NOT NULL
        BEGIN
            INSERT INTO notifications (notification_type, transaction_id, created_at_ms, has_snapshot, signed_date_ms,
                revocation_date_ms, revocation_reason, revocation_type, revocation_percentage, next_attempt_ms)
            VALUES ('REFUND', NEW.id, NEW.revocation_date_ms, 1, NEW.signed_date_ms, NEW.revocation_date_ms,
                NEW.revocation_reason, NEW.revocation_type, NEW.revocation_percentage, NEW.revocation_date_ms);
        END;
        CREATE TRIGGER notify_refund_reversed AFTER UPDATE OF revocation_date_ms ON transactions
        WHEN OLD.revocation_date_ms IS NOT NULL AND NEW.revocation_date_ms IS NULL AND NEW.status = 'purchased'
            AND (SELECT url FROM notification_settings WHERE id = 1) IS NOT NULL
        BEGIN
            INSERT INTO notifications (notification_type, transaction_id, created_at_ms, has_snapshot, signed_date_ms,
                revocation_date_ms, revocation_reason, revocation_type, revocation_percentage, next_attempt_ms)
            VALUES ('REFUND_REVERSED', NEW.id, COALESCE(NEW.signed_date_ms, OLD.revocation_date_ms), 1, NEW.signed_date_ms,
                NULL, NULL, NULL, NULL, COALESCE(NEW.signed_date_ms, OLD.revocation_date_ms));
        END;
        CREATE TRIGGER notify_consumption_request AFTER INSERT ON refund_requests
        WHEN (SELECT url FROM notification_settings WHERE id = 1) IS NOT NULL
        BEGIN
            INSERT INTO notifications (notification_type, transaction_id, created_at_ms, has_snapshot, signed_date_ms,
                revocation_date_ms, revocation_reason, revocation_type, revocation_percentage, consumption_request_reason,
                next_attempt_ms)
            SELECT 'CONSUMPTION_REQUEST', NEW.transaction_id, NEW.requested_at_ms, 1, signed_date_ms, revocation_date_ms,
                revocation_reason, revocation_type, revocation_percentage,
                CASE NEW.reason WHEN 'developerIssue' THEN 'FULFILLMENT_ISSUE' ELSE 'OTHER' END, NEW.requested_at_ms
            FROM transactions WHERE id = NEW.transaction_id;
        END;
        CREATE TRIGGER notify_refund_declined AFTER UPDATE OF state ON refund_requests
        WHEN OLD.state = 'pending' AND NEW.state = 'declined' AND (SELECT url FROM notification_settings WHERE id = 1) IS NOT NULL
        BEGIN
            INSERT INTO notifications (notification_type, transaction_id, created_at_ms, has_snapshot, signed_date_ms,
                revocation_date_ms, revocation_reason, revocation_type, revocation_percentage, next_attempt_ms)
            SELECT 'REFUND_DECLINED', NEW.transaction_id, COALESCE(NEW.decided_at_ms, NEW.requested_at_ms), 1, signed_date_ms,
                revocation_date_ms, revocation_reason, revocation_type, revocation_percentage,
                COALESCE(NEW.decided_at_ms, NEW.requested_at_ms)
            FROM transactions WHERE id = NEW.transaction_id;
        END;
        """

    /// `v15-notification-attempts-under-way`: an attempt is stored when it starts and completed when it ends
    /// (`ended_at_ms` `NULL` while it is under way; its `result` is `OTHER` until then), with the URL it posted to and
    /// the cause in words, so an attempt cut by a crash shows in the history; and an index for the lane `TEST`
    /// notifications take past the backlog. Attempts stored before ended when they were stored; a claim a stopped
    /// process left under v14 (which stored an attempt only when it ended) is pending again, as its lease would have made it.
    public static let v15 = """
        ALTER TABLE notification_attempts ADD COLUMN url TEXT;
        ALTER TABLE notification_attempts ADD COLUMN detail TEXT;
        ALTER TABLE notification_attempts ADD COLUMN ended_at_ms INTEGER;
        UPDATE notification_attempts SET ended_at_ms = attempted_at_ms;
        UPDATE notifications SET state = 'pending' WHERE state = 'sending';
        CREATE INDEX notifications_due_tests ON notifications (next_attempt_ms, id)
            WHERE state IN ('pending', 'sending') AND notification_type = 'TEST';
        """

    /// `v17-notification-keys-indexed-when-set`: `test_token` and `notification_uuid` stay unique, through partial unique
    /// indexes that hold only the rows where they are set (https://www.sqlite.org/partialindex.html, "Unique Partial
    /// Indexes"), instead of the `UNIQUE` column constraints, whose automatic indexes took a `NULL` entry for every
    /// notification a purchase queued: two more B-trees written in the purchase's commit, about 25 KB of WAL and
    /// checkpoint writes per purchase with notifications on (`/proc/PID/io` over `Tests/Benchmarks/purchase_bench.sh`'s
    /// load). A column constraint cannot be dropped, so the table is made again as SQLite's "Making Other Kinds Of Table
    /// Schema Changes" describes (https://www.sqlite.org/lang_altertable.html#otheralter), inside the migration's
    /// transaction: its rows (ids included) and its attempts are copied aside, the attempts emptied so dropping the table
    /// breaks no foreign key, the table created again with the same columns and checks, its rows and indexes put back,
    /// then its attempts. Nothing is renamed, so the triggers that queue notifications (`v14`) read the table by the same
    /// name throughout. The table's definition is written out again rather than shared with `v14`: a migration that
    /// shipped never changes, so neither may depend on text the other could edit.
    public static let v17 = """
        CREATE TABLE notifications_v17_copy AS SELECT * FROM notifications;
        CREATE TABLE notification_attempts_v17_copy AS SELECT * FROM notification_attempts;
        DELETE FROM notification_attempts;
        DROP TABLE notifications;
        CREATE TABLE notifications (
            id INTEGER PRIMARY KEY,
            notification_type TEXT NOT NULL CHECK (notification_type IN
                ('ONE_TIME_CHARGE', 'CONSUMPTION_REQUEST', 'REFUND', 'REFUND_DECLINED', 'REFUND_REVERSED', 'TEST')),
            subtype TEXT,
            transaction_id INTEGER,
            created_at_ms INTEGER NOT NULL,
            has_snapshot INTEGER NOT NULL DEFAULT 0 CHECK (has_snapshot IN (0, 1)),
            signed_date_ms INTEGER,
            revocation_date_ms INTEGER,
            revocation_reason TEXT,
            revocation_type TEXT,
            revocation_percentage INTEGER,
            consumption_request_reason TEXT,
            test_token TEXT,
            notification_uuid TEXT,
            signed_payload TEXT,
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'delivered', 'failed')),
            attempt_count INTEGER NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
            next_attempt_ms INTEGER NOT NULL
        );
        INSERT INTO notifications (id, notification_type, subtype, transaction_id, created_at_ms, has_snapshot, signed_date_ms,
            revocation_date_ms, revocation_reason, revocation_type, revocation_percentage, consumption_request_reason, test_token,
            notification_uuid, signed_payload, state, attempt_count, next_attempt_ms)
        SELECT id, notification_type, subtype, transaction_id, created_at_ms, has_snapshot, signed_date_ms,
            revocation_date_ms, revocation_reason, revocation_type, revocation_percentage, consumption_request_reason, test_token,
            notification_uuid, signed_payload, state, attempt_count, next_attempt_ms
        FROM notifications_v17_copy ORDER BY id;
        CREATE INDEX notifications_due ON notifications (next_attempt_ms, id) WHERE state IN ('pending', 'sending');
        CREATE INDEX notifications_by_transaction ON notifications (transaction_id, id);
        CREATE INDEX notifications_by_created ON notifications (created_at_ms, id);
        CREATE INDEX notifications_due_tests ON notifications (next_attempt_ms, id)
            WHERE state IN ('pending', 'sending') AND notification_type = 'TEST';
        CREATE UNIQUE INDEX notifications_test_token ON notifications (test_token) WHERE test_token IS NOT NULL;
        CREATE UNIQUE INDEX notifications_uuid ON notifications (notification_uuid) WHERE notification_uuid IS NOT NULL;
        INSERT INTO notification_attempts (notification_id, attempt, attempted_at_ms, result, url, detail, ended_at_ms)
        SELECT notification_id, attempt, attempted_at_ms, result, url, detail, ended_at_ms FROM notification_attempts_v17_copy;
        DROP TABLE notification_attempts_v17_copy;
        DROP TABLE notifications_v17_copy;
        """
}

extension TipJarSchema {
    /// The statements that queue the `ONE_TIME_CHARGE`s of purchases committed since the last time (`v18`): each
    /// `purchased` transaction past `charges_queued_through`, in ID order, with its fields as they are (nothing has
    /// changed them since: every change to a transaction queues first), then the mark moved to the newest transaction.
    /// Written out in `v18`'s triggers too, since a migration that shipped never changes.
    static let queueOneTimeCharges = [
        """
        INSERT INTO notifications (notification_type, transaction_id, created_at_ms, has_snapshot, signed_date_ms,
            revocation_date_ms, revocation_reason, revocation_type, revocation_percentage, next_attempt_ms)
        SELECT 'ONE_TIME_CHARGE', t.id, t.purchase_date_ms, 1, t.signed_date_ms, t.revocation_date_ms, t.revocation_reason,
            t.revocation_type, t.revocation_percentage, t.purchase_date_ms
        FROM notification_settings s JOIN transactions t ON t.id > s.charges_queued_through
        WHERE s.id = 1 AND s.url IS NOT NULL AND t.status = 'purchased' ORDER BY t.id
        """,
        """
        UPDATE notification_settings SET charges_queued_through = (SELECT MAX(id) FROM transactions)
        WHERE id = 1 AND charges_queued_through < (SELECT MAX(id) FROM transactions)
        """,
    ]

    /// `v18-one-time-charges-queued-by-the-sender`: a purchase's commit no longer writes its `ONE_TIME_CHARGE` (a row
    /// and three index entries, about 30 µs of a purchase's server CPU under `Tests/Benchmarks/purchase_bench.sh`'s
    /// load): the sender queues the charges of every purchase committed since its last step in one write
    /// (`TipJarSchema.queueOneTimeCharges`), and so does every read of the queue before it reads. A crash loses
    /// nothing: the purchase is committed, and the next start queues it.
    ///
    /// `notification_settings.charges_queued_through` is the highest transaction ID whose charge was queued or passed
    /// over: every purchase past it was committed while a notifications URL was set (saving a URL moves the mark past
    /// the purchases made without one). What the `v14` trigger gave each purchase is kept:
    /// - **Its fields as bought:** every other change to `transactions` or `refund_requests` (a refund, a finish, a
    ///   deletion, a consumption request) first queues the charges waiting (`BEFORE` triggers, whose `WHEN` reads the
    ///   one-row settings table and finds the waiting tail by the primary key), so a charge is queued before any
    ///   notification its transaction causes later, and with the fields it was bought with.
    /// - **Only purchases:** a transaction inserted `pending` (Ask to Buy) and purchased later by an update is passed
    ///   over, as the `v14` trigger (`AFTER INSERT`) passed it over.
    /// - **IDs out of order:** a purchase whose ID is not past the mark (IDs are `TipJarEnvironment.nextTransactionID`'s,
    ///   which a test may choose) is queued at once, as before.
    public static let v18 = """
        ALTER TABLE notification_settings ADD COLUMN charges_queued_through INTEGER NOT NULL DEFAULT 0;
        UPDATE notification_settings SET charges_queued_through = COALESCE((SELECT MAX(id) FROM transactions), 0);
        DROP TRIGGER notify_one_time_charge;
        CREATE TRIGGER notify_one_time_charge_out_of_order AFTER INSERT ON transactions
        WHEN NEW.status = 'purchased'
            AND (SELECT url IS NOT NULL AND NEW.id <= charges_queued_through FROM notification_settings WHERE id = 1)
        BEGIN
            INSERT INTO notifications (notification_type, transaction_id, created_at_ms, has_snapshot, signed_date_ms,
                revocation_date_ms, revocation_reason, revocation_type, revocation_percentage, next_attempt_ms)
            VALUES ('ONE_TIME_CHARGE', NEW.id, NEW.purchase_date_ms, 1, NEW.signed_date_ms, NEW.revocation_date_ms,
                NEW.revocation_reason, NEW.revocation_type, NEW.revocation_percentage, NEW.purchase_date_ms);
        END;
        CREATE TRIGGER queue_one_time_charges_before_transaction_update BEFORE UPDATE ON transactions
        WHEN (SELECT url IS NOT NULL FROM notification_settings WHERE id = 1)
            AND EXISTS (SELECT 1 FROM transactions WHERE id > (SELECT charges_queued_through FROM notification_settings WHERE id = 1))
        BEGIN
            INSERT INTO notifications (notification_type, transaction_id, created_at_ms, has_snapshot, signed_date_ms,
                revocation_date_ms, revocation_reason, revocation_type, revocation_percentage, next_attempt_ms)
            SELECT 'ONE_TIME_CHARGE', t.id, t.purchase_date_ms, 1, t.signed_date_ms, t.revocation_date_ms, t.revocation_reason,
                t.revocation_type, t.revocation_percentage, t.purchase_date_ms
            FROM notification_settings s JOIN transactions t ON t.id > s.charges_queued_through
            WHERE s.id = 1 AND s.url IS NOT NULL AND t.status = 'purchased' ORDER BY t.id;
            UPDATE notification_settings SET charges_queued_through = (SELECT MAX(id) FROM transactions)
            WHERE id = 1 AND charges_queued_through < (SELECT MAX(id) FROM transactions);
        END;
        CREATE TRIGGER queue_one_time_charges_before_transaction_delete BEFORE DELETE ON transactions
        WHEN (SELECT url IS NOT NULL FROM notification_settings WHERE id = 1)
            AND EXISTS (SELECT 1 FROM transactions WHERE id > (SELECT charges_queued_through FROM notification_settings WHERE id = 1))
        BEGIN
            INSERT INTO notifications (notification_type, transaction_id, created_at_ms, has_snapshot, signed_date_ms,
                revocation_date_ms, revocation_reason, revocation_type, revocation_percentage, next_attempt_ms)
            SELECT 'ONE_TIME_CHARGE', t.id, t.purchase_date_ms, 1, t.signed_date_ms, t.revocation_date_ms, t.revocation_reason,
                t.revocation_type, t.revocation_percentage, t.purchase_date_ms
            FROM notification_settings s JOIN transactions t ON t.id > s.charges_queued_through
            WHERE s.id = 1 AND s.url IS NOT NULL AND t.status = 'purchased' ORDER BY t.id;
            UPDATE notification_settings SET charges_queued_through = (SELECT MAX(id) FROM transactions)
            WHERE id = 1 AND charges_queued_through < (SELECT MAX(id) FROM transactions);
        END;
        CREATE TRIGGER queue_one_time_charges_before_refund_request BEFORE INSERT ON refund_requests
        WHEN (SELECT url IS NOT NULL FROM notification_settings WHERE id = 1)
            AND EXISTS (SELECT 1 FROM transactions WHERE id > (SELECT charges_queued_through FROM notification_settings WHERE id = 1))
        BEGIN
            INSERT INTO notifications (notification_type, transaction_id, created_at_ms, has_snapshot, signed_date_ms,
                revocation_date_ms, revocation_reason, revocation_type, revocation_percentage, next_attempt_ms)
            SELECT 'ONE_TIME_CHARGE', t.id, t.purchase_date_ms, 1, t.signed_date_ms, t.revocation_date_ms, t.revocation_reason,
                t.revocation_type, t.revocation_percentage, t.purchase_date_ms
            FROM notification_settings s JOIN transactions t ON t.id > s.charges_queued_through
            WHERE s.id = 1 AND s.url IS NOT NULL AND t.status = 'purchased' ORDER BY t.id;
            UPDATE notification_settings SET charges_queued_through = (SELECT MAX(id) FROM transactions)
            WHERE id = 1 AND charges_queued_through < (SELECT MAX(id) FROM transactions);
        END;
        CREATE TRIGGER queue_one_time_charges_before_refund_request_update BEFORE UPDATE ON refund_requests
        WHEN (SELECT url IS NOT NULL FROM notification_settings WHERE id = 1)
            AND EXISTS (SELECT 1 FROM transactions WHERE id > (SELECT charges_queued_through FROM notification_settings WHERE id = 1))
        BEGIN
            INSERT INTO notifications (notification_type, transaction_id, created_at_ms, has_snapshot, signed_date_ms,
                revocation_date_ms, revocation_reason, revocation_type, revocation_percentage, next_attempt_ms)
            SELECT 'ONE_TIME_CHARGE', t.id, t.purchase_date_ms, 1, t.signed_date_ms, t.revocation_date_ms, t.revocation_reason,
                t.revocation_type, t.revocation_percentage, t.purchase_date_ms
            FROM notification_settings s JOIN transactions t ON t.id > s.charges_queued_through
            WHERE s.id = 1 AND s.url IS NOT NULL AND t.status = 'purchased' ORDER BY t.id;
            UPDATE notification_settings SET charges_queued_through = (SELECT MAX(id) FROM transactions)
            WHERE id = 1 AND charges_queued_through < (SELECT MAX(id) FROM transactions);
        END;
        """
}
