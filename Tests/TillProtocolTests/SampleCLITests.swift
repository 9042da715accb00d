import Foundation
import Testing

// `till url …` for every action of the vendor's sample apps, spelled as issue 12 says; URLs byte for byte.

private let caller = ["--merchant-key", "SG23323424EXS3", "--app-id", "com.vivawallet.InterAppDemo", "--show-secrets"]
private let head = "vivapayclient://pay/v1?callback=interapp-callback&merchantKey=SG23323424EXS3&appId=com.vivawallet.InterAppDemo"
private let activationHead = "vivapayclient://pay/v1?callback=interapp-callback&appId=com.vivawallet.InterAppDemo"

private func url(_ args: [String], env: [String: String] = [:]) throws -> RunResult {
    try TillBinary.run(["url"] + args + caller, environment: env)
}

@Suite("till url: the sample apps' actions")
struct SampleURLCommandTests {
    @Test func saleWithPaymentMethodAndOneInstalment() throws {
        let r = try url(["sale", "--amount", "12", "--payment-method", "MOTO"])
        #expect(r.status == 0)
        #expect(r.stdout == head + "&action=sale&amount=1200&withInstallments=false&paymentMethod=MOTO&protocol=int_default\n")
        // sale.txt:77-83: true only for more than one instalment.
        let one = try url(["sale", "--amount", "12", "--installments", "1"])
        #expect(one.stdout == head + "&action=sale&amount=1200&withInstallments=false&protocol=int_default\n")
        // sale.txt:28: above the maximum the terminal asks; sent as typed.
        let many = try url(["sale", "--amount", "12", "--installments", "48"])
        #expect(many.status == 0)
        #expect(many.stdout == head + "&action=sale&amount=1200&withInstallments=true&preferredInstallments=48&protocol=int_default\n")
        let pre = try url(["preauth", "--amount", "5", "--payment-method", "klarna"])
        #expect(pre.stdout == head + "&action=pre_auth&amount=500&paymentMethod=Klarna&protocol=int_default\n")
        let bad = try url(["sale", "--amount", "12", "--payment-method", "cash"])
        #expect(bad.status == 2 && bad.stderr.contains("'cash' is not one of CardPresent|MOTO|QrDefault|Payconiq|AliPay|Paypal|Klarna"))
    }

    @Test func isvCurrencyAndSourceTerminal() throws {
        let r = try url(["sale", "--amount", "12", "--isv-amount", "0.1", "--isv-client-id", "c", "--isv-client-secret", "s",
                         "--isv-merchant-id", "m", "--isv-currency-code", "978", "--no-protocol"])
        #expect(r.stdout == head + "&action=sale&amount=1200&withInstallments=false&ISV_clientId=c&ISV_amount=10&ISV_clientSecret=s"
            + "&ISV_merchantId=m&ISV_currencyCode=978\n")
        let d = try url(["details", "--client-transaction-id", "x-1", "--source-terminal-id", "16016684"])
        #expect(d.stdout == head + "&action=transactionDetails&clientTransactionId=x-1&sourceTerminalId=16016684\n")
    }

    @Test func reprint() throws {
        #expect(try url(["reprint", "--order-code", "1091166300000136"]).stdout == head + "&action=reprintTransaction&orderCode=1091166300000136\n")
        #expect(try url(["reprint", "--latest"]).stdout == head + "&action=reprintTransaction\n")
        let none = try url(["reprint"])
        #expect(none.status == 2 && none.stderr.contains("Say which receipt to reprint"))
    }

    @Test func printingSettings() throws {
        #expect(try url(["printing-settings", "get"]).stdout == head + "&action=getPrintingSettings\n")
        let set = try url(["printing-settings", "set", "--customer-receipt", "true", "--merchant-receipt", "false", "--printing", "true",
                           "--logo", "false", "--vat", "true", "--barcode", "false", "--address", "true", "--business-description", "storeName"])
        #expect(set.status == 0)
        #expect(set.stdout == head + "&action=set_printing_settings&isCustomerReceiptEnabled=true&isMerchantReceiptEnabled=false"
            + "&isPrintingReceiptEnabled=true&printLogoOnMerchantReceipt=false&printVATOnMerchantReceipt=true&isBarcodeEnabled=false"
            + "&printAddressOnReceipt=true&businessDescriptionEnabled=true&businessDescriptionType=storeName\n")
        #expect(try url(["printing-settings", "set", "--business-description", "false"]).stdout
            == head + "&action=set_printing_settings&businessDescriptionEnabled=false\n")
        let empty = try url(["printing-settings", "set"])
        #expect(empty.status == 2 && empty.stderr.contains("Say which printing setting to change"))
        let bad = try url(["printing-settings", "set", "--logo", "maybe"])
        #expect(bad.status == 2 && bad.stderr.contains("'maybe' is not true or false") && !bad.stderr.contains("Say which"))
    }

    @Test func sendLogsAndActivation() throws {
        #expect(try url(["send-logs"]).stdout == head + "&action=sendLogs\n")
        #expect(try url(["activation-code"]).stdout == activationHead + "&action=getActivationCode\n")
        let a = try url(["activate", "--activation-code", "12345678", "--source-id", "Default", "--pin-code", "1234",
                         "--lock-refund", "true", "--activate-qr-codes", "false"])
        #expect(a.stdout == activationHead + "&action=activatePos&activationCode=12345678&sourceID=Default&pinCode=1234"
            + "&activateQRCodes=false&lockRefund=true\n")
    }

    @Test func activationSecretsAreRedactedByDefault() throws {
        let r = try TillBinary.run(["url", "activate", "--api-key", "KEY-123", "--api-secret", "SECRET-456", "--pin-code", "9876"])
        #expect(r.status == 0)
        #expect(r.stdout == "vivapayclient://pay/v1?callback=interapp-callback&appId=com.example.till&action=activatePos"
            + "&apikey=%5Bredacted%5D&apiSecret=%5Bredacted%5D&pinCode=%5Bredacted%5D\n")
        // From the environment, so that `ps` never shows them.
        let env = try TillBinary.run(["url", "activate", "--source-id", "Default"],
                                     environment: ["TILL_API_KEY": "ENV-KEY", "TILL_API_SECRET": "ENV-SECRET", "TILL_PIN_CODE": "2468"])
        #expect(env.stdout == "vivapayclient://pay/v1?callback=interapp-callback&appId=com.example.till&action=activatePos"
            + "&apikey=%5Bredacted%5D&apiSecret=%5Bredacted%5D&sourceID=Default&pinCode=%5Bredacted%5D\n")
        let shown = try TillBinary.run(["url", "activate", "--show-secrets"], environment: ["TILL_API_KEY": "ENV-KEY", "TILL_API_SECRET": "ENV-SECRET"])
        #expect(shown.stdout.contains("&apikey=ENV-KEY&apiSecret=ENV-SECRET"))
        let half = try TillBinary.run(["url", "activate", "--api-key", "KEY-123"])
        #expect(half.status == 2 && half.stderr.contains("An API key needs its API secret too.") && !half.stderr.contains("KEY-123"))
    }

    /// capture-preauth.txt:28, :32 ("ISO 8601"): a day or a time without offset, in the till's zone, sent in full.
    @Test func captureDatesInTheTillsZone() throws {
        let r = try url(["capture", "--reference", "833121", "--from", "2021-03-29", "--to", "2021-03-30T12:00"], env: ["TZ": "Europe/Athens"])
        #expect(r.status == 0)
        #expect(r.stdout == head + "&action=capture_pre_auth&referenceNumber=833121"
            + "&txnDateFrom=2021-03-29T00%3A00%3A00.000%2B03%3A00&txnDateTo=2021-03-30T12%3A00%3A00.000%2B03%3A00&protocol=int_default\n")
        let day = try url(["capture", "--reference", "833121", "--from", "2021-01-15", "--to", "2021-01-15"], env: ["TZ": "Europe/Athens"])
        #expect(day.stdout.contains("txnDateFrom=2021-01-15T00%3A00%3A00.000%2B02%3A00&txnDateTo=2021-01-15T23%3A59%3A59.999%2B02%3A00"))
        let bad = try url(["capture", "--reference", "833121", "--from", "29/03/2021"])
        #expect(bad.status == 2 && bad.stderr.contains("'29/03/2021' is not a date: type it as YYYY-MM-DD"), "\(bad.stderr)")
    }

    /// Issue 9: a callback no terminal can answer is refused before anything is sent.
    @Test func unanswerableCallbacksAreRefused() throws {
        for cb in ["a://b?c", "my callback", "cb&action=sale"] {
            let r = try TillBinary.run(["url", "abort", "--callback", cb])
            #expect(r.status == 2 && r.stderr.contains("is not an address a terminal can answer to"), "\(cb)")
        }
    }
}
