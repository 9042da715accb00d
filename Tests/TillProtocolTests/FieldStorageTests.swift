import Foundation
import Testing
@testable import TillProtocol

/// The decoder keeps a callback's fields raw (the text plus one record a field) and makes their
/// strings on access: none of that may show. These answers' JSON was captured from the decoder as it
/// was before (a `[QueryField]` array of strings), key-sorted for comparison and in the journal's
/// own unsorted form; the journal stores and reads back exactly this.
@Suite("Callback fields: raw storage is invisible")
struct FieldStorageTests {
    static let captured: [(url: String, sortedJSON: String, journalJSON: String)] = [
        (#"mycallbackscheme://result?status=success&message=Transaction%20successful.&action=sale&clientTransactionId=12345678901234567890123456789012&amount=1200&tipAmount=200&verificationMethod=CHIP-PIN&rrn=123456833121&cardType=VISA&accountNumber=479275******9999&referenceNumber=833121&authorisationCode=690882&tid=16016684&orderCode=9256110059000200&installments=10&transactionDate=2019-09-13T12:14:19.8703452+03:00&transactionId=a78e045c-49c3-4743-9071-f1e0ed71810c"#,
         #"{"action":"sale","amount":{"cents":1200},"fields":[{"name":"status","value":"success"},{"name":"message","value":"Transaction successful."},{"name":"action","value":"sale"},{"name":"clientTransactionId","value":"12345678901234567890123456789012"},{"name":"amount","value":"1200"},{"name":"tipAmount","value":"200"},{"name":"verificationMethod","value":"CHIP-PIN"},{"name":"rrn","value":"123456833121"},{"name":"cardType","value":"VISA"},{"name":"accountNumber","value":"479275******9999"},{"name":"referenceNumber","value":"833121"},{"name":"authorisationCode","value":"690882"},{"name":"tid","value":"16016684"},{"name":"orderCode","value":"9256110059000200"},{"name":"installments","value":"10"},{"name":"transactionDate","value":"2019-09-13T12:14:19.8703452+03:00"},{"name":"transactionId","value":"a78e045c-49c3-4743-9071-f1e0ed71810c"}],"installments":10,"message":"Transaction successful.","rawAction":"sale","status":{"success":{}},"target":"mycallbackscheme:\/\/result","tipAmount":{"cents":200},"transactionDate":{"instant":15683660598703452,"offsetMinutes":180,"text":"2019-09-13T12:14:19.8703452+03:00"},"warnings":[]}"#,
         #"{"tipAmount":{"cents":200},"message":"Transaction successful.","target":"mycallbackscheme:\/\/result","warnings":[],"status":{"success":{}},"action":"sale","fields":[{"name":"status","value":"success"},{"name":"message","value":"Transaction successful."},{"name":"action","value":"sale"},{"name":"clientTransactionId","value":"12345678901234567890123456789012"},{"name":"amount","value":"1200"},{"name":"tipAmount","value":"200"},{"name":"verificationMethod","value":"CHIP-PIN"},{"name":"rrn","value":"123456833121"},{"name":"cardType","value":"VISA"},{"name":"accountNumber","value":"479275******9999"},{"name":"referenceNumber","value":"833121"},{"name":"authorisationCode","value":"690882"},{"name":"tid","value":"16016684"},{"name":"orderCode","value":"9256110059000200"},{"name":"installments","value":"10"},{"name":"transactionDate","value":"2019-09-13T12:14:19.8703452+03:00"},{"name":"transactionId","value":"a78e045c-49c3-4743-9071-f1e0ed71810c"}],"amount":{"cents":1200},"transactionDate":{"instant":15683660598703452,"offsetMinutes":180,"text":"2019-09-13T12:14:19.8703452+03:00"},"installments":10,"rawAction":"sale"}"#),
        (#"interapp-callback://result?accountNumber=4792751234569999&action=SALE&amount=50&cardType=Visa Credit&clientTransactionId=&message=(-12) TRANSACTION_DECLINED_BY_SERVER&orderCode=&status=fail&tid=16001184&transactionDate=2023-01-17T12:46:19.0640821 02:00&verificationMethod=CONTACTLESS - NO CVM&status=success& x%20y = %20a%26b%20 &flag&&cardType=%zz&tipAmount=-5&installments=three&zz=Caf%C3%A9&zz=dup&tid2=%FF"#,
         #"{"action":"sale","amount":{"cents":50},"fields":[{"name":"accountNumber","value":"479275******9999"},{"name":"action","value":"SALE"},{"name":"amount","value":"50"},{"name":"cardType","value":"Visa Credit"},{"name":"clientTransactionId","value":""},{"name":"message","value":"(-12) TRANSACTION_DECLINED_BY_SERVER"},{"name":"orderCode","value":""},{"name":"status","value":"fail"},{"name":"tid","value":"16001184"},{"name":"transactionDate","value":"2023-01-17T12:46:19.0640821+02:00"},{"name":"verificationMethod","value":"CONTACTLESS - NO CVM"},{"name":"x y","value":"a&b"},{"name":"flag","value":""},{"name":"tipAmount","value":"-5"},{"name":"installments","value":"three"},{"name":"zz","value":"Café"},{"name":"tid2","value":"�"}],"message":"(-12) TRANSACTION_DECLINED_BY_SERVER","messageCode":-12,"messageName":"TRANSACTION_DECLINED_BY_SERVER","rawAction":"SALE","status":{"fail":{}},"target":"interapp-callback:\/\/result","transactionDate":{"instant":16739523790640821,"offsetMinutes":120,"text":"2023-01-17T12:46:19.0640821+02:00"},"warnings":[{"unescapedSpace":{"field":"cardType"}},{"unescapedSpace":{"field":"message"}},{"unescapedSpace":{"field":"verificationMethod"}},{"duplicateField":{"field":"status"}},{"strayWhitespace":{"field":"x y"}},{"parameterWithoutValue":{"field":"flag"}},{"emptyParameter":{}},{"badEscape":{"field":"cardType"}},{"duplicateField":{"field":"cardType"}},{"duplicateField":{"field":"zz"}},{"unmaskedCardNumber":{}},{"actionCase":{"_0":"SALE"}},{"spaceForPlusInDate":{"field":"transactionDate"}},{"badNumber":{"field":"tipAmount","value":"-5"}},{"badNumber":{"field":"installments","value":"three"}}]}"#,
         #"{"messageCode":-12,"transactionDate":{"offsetMinutes":120,"text":"2023-01-17T12:46:19.0640821+02:00","instant":16739523790640821},"status":{"fail":{}},"amount":{"cents":50},"messageName":"TRANSACTION_DECLINED_BY_SERVER","warnings":[{"unescapedSpace":{"field":"cardType"}},{"unescapedSpace":{"field":"message"}},{"unescapedSpace":{"field":"verificationMethod"}},{"duplicateField":{"field":"status"}},{"strayWhitespace":{"field":"x y"}},{"parameterWithoutValue":{"field":"flag"}},{"emptyParameter":{}},{"badEscape":{"field":"cardType"}},{"duplicateField":{"field":"cardType"}},{"duplicateField":{"field":"zz"}},{"unmaskedCardNumber":{}},{"actionCase":{"_0":"SALE"}},{"spaceForPlusInDate":{"field":"transactionDate"}},{"badNumber":{"value":"-5","field":"tipAmount"}},{"badNumber":{"value":"three","field":"installments"}}],"fields":[{"name":"accountNumber","value":"479275******9999"},{"name":"action","value":"SALE"},{"name":"amount","value":"50"},{"name":"cardType","value":"Visa Credit"},{"name":"clientTransactionId","value":""},{"name":"message","value":"(-12) TRANSACTION_DECLINED_BY_SERVER"},{"name":"orderCode","value":""},{"name":"status","value":"fail"},{"name":"tid","value":"16001184"},{"name":"transactionDate","value":"2023-01-17T12:46:19.0640821+02:00"},{"name":"verificationMethod","value":"CONTACTLESS - NO CVM"},{"name":"x y","value":"a&b"},{"name":"flag","value":""},{"name":"tipAmount","value":"-5"},{"name":"installments","value":"three"},{"name":"zz","value":"Café"},{"name":"tid2","value":"�"}],"rawAction":"SALE","target":"interapp-callback:\/\/result","message":"(-12) TRANSACTION_DECLINED_BY_SERVER","action":"sale"}"#),
        (#"cb://result?status=fail&message=(-57) ABORTED&action=ABORT&amount=10&tipAmount=0"#,
         #"{"action":"abort","amount":{"cents":10},"fields":[{"name":"status","value":"fail"},{"name":"message","value":"(-57) ABORTED"},{"name":"action","value":"ABORT"},{"name":"amount","value":"10"},{"name":"tipAmount","value":"0"}],"message":"(-57) ABORTED","messageCode":-57,"messageName":"ABORTED","rawAction":"ABORT","status":{"fail":{}},"target":"cb:\/\/result","tipAmount":{"cents":0},"warnings":[{"unescapedSpace":{"field":"message"}}]}"#,
         #"{"tipAmount":{"cents":0},"message":"(-57) ABORTED","target":"cb:\/\/result","warnings":[{"unescapedSpace":{"field":"message"}}],"messageCode":-57,"status":{"fail":{}},"action":"abort","fields":[{"value":"fail","name":"status"},{"value":"(-57) ABORTED","name":"message"},{"value":"ABORT","name":"action"},{"value":"10","name":"amount"},{"value":"0","name":"tipAmount"}],"messageName":"ABORTED","amount":{"cents":10},"rawAction":"ABORT"}"#)
    ]

    @Test func jsonIsExactlyWhatItWas() throws {
        let sorted = JSONEncoder()
        sorted.outputFormatting = [.sortedKeys]
        for c in Self.captured {
            let r = try CallbackResponse.decode(c.url)
            #expect(String(decoding: try sorted.encode(r), as: UTF8.self) == c.sortedJSON)
            // The journal's own encoder (key order unspecified): the same JSON object, and it decodes back equal.
            let plain = try JSONEncoder().encode(r)
            let a = try JSONSerialization.jsonObject(with: plain) as? NSDictionary
            let b = try JSONSerialization.jsonObject(with: Data(c.sortedJSON.utf8)) as? NSDictionary
            #expect(a != nil && a == b)
            let back = try JSONDecoder().decode(CallbackResponse.self, from: plain)
            #expect(back == r)
            #expect(back.hashValue == r.hashValue)
            #expect(String(decoding: try sorted.encode(back), as: UTF8.self) == c.sortedJSON)
        }
    }

    @Test func journalsWrittenBeforeStillDecode() throws {
        for c in Self.captured {
            let old = try JSONDecoder().decode(CallbackResponse.self, from: Data(c.journalJSON.utf8))
            let now = try CallbackResponse.decode(c.url)
            #expect(old == now)
            #expect(old.fields == now.fields)
            #expect(old.fields.map(\.name) == now.fields.map(\.name))
            #expect(old.fields.map(\.value) == now.fields.map(\.value))
            #expect(old.accountNumber == now.accountNumber && old["zz"] == now["zz"] && old["x y"] == now["x y"])
        }
    }

    @Test func fieldsBehaveLikeAnArray() throws {
        var r = try CallbackResponse.decode(Self.captured[1].url)
        let before = r
        let array: [QueryField] = Array(r.fields)
        #expect(QueryFields(array) == r.fields)
        #expect(QueryFields(array).hashValue == r.fields.hashValue)
        #expect(r.fields.count == 17 && r.fields.first?.name == "accountNumber" && r.fields.last?.value == "\u{FFFD}")
        #expect(r["x y"] == "a&b" && r["zz"] == "Café" && r["flag"] == "" && r["nope"] == nil)
        #expect(r.accountNumber == "479275******9999" && r.transactionDate?.text == "2023-01-17T12:46:19.0640821+02:00")
        // Written in place, as Journal.storable does.
        for i in r.fields.indices where r.fields[i].name == "accountNumber" { r.fields[i].value = "[redacted]" }
        #expect(r.fields[0] == QueryField(name: "accountNumber", value: "[redacted]"))
        #expect(r.accountNumber == "[redacted]" && r["accountNumber"] == "[redacted]")
        #expect(r != before && r.fields.count == before.fields.count)
        r.fields[0].name = "renamed"
        #expect(r["renamed"] == "[redacted]" && r.accountNumber == nil)
        r.fields.append(QueryField(name: "extra", value: "1"))
        r.fields.remove(at: 0)
        #expect(r.fields.count == 17 && r["extra"] == "1" && r.fields.first?.name == "action")
        var copy = before
        copy.fields[0].value = "x"
        #expect(before.fields[0].value == "479275******9999")   // a value type: the copy changed alone
        let literal: QueryFields = [QueryField(name: "status", value: "success")]
        #expect(try CallbackResponse.decode("cb://result?status=success").fields == literal)
    }

    @Test func namesCompareAsStrings() throws {
        // "\u{212A}" (KELVIN SIGN) equals "K" as a String; "e\u{301}" equals "é". The lookups and the
        // duplicate check answer as String equality does, whatever the bytes.
        let r = try CallbackResponse.decode("cb://result?status=success&K=1&%E2%84%AA=2&caf%C3%A9=3&cafe%CC%81=4&abc=5&abc=6")
        #expect(r["K"] == "1" && r["\u{212A}"] == "1")
        #expect(r["café"] == "3" && r["cafe\u{301}"] == "3")
        #expect(r["abc"] == "5")
        #expect(r.fields.map(\.name) == ["status", "K", "café", "abc"])
        #expect(r.warnings == [.duplicateField(field: "\u{212A}"), .duplicateField(field: "cafe\u{301}"), .duplicateField(field: "abc")])
    }
}
