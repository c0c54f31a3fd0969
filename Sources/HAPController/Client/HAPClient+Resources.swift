import HomeModel

extension HAPClient {
    /// A JPEG snapshot from the camera `aid` with `POST /resource` (docs/hap-notes.md §4.9), about
    /// `width` × `height` pixels.
    /// - Throws: `.refused` when the accessory answers with a HAP status (`{"status":-70409}`), or
    ///   `.invalidResponse` for any other HTTP error or a body that is not a JPEG (empty, or not starting
    ///   with the JPEG marker `FF D8`); the connection's errors.
    public func snapshot(aid: Int, width: Int, height: Int) async throws(HAPConnectionError) -> [UInt8] {
        let request = HAPRequests.snapshot(aid: aid, width: width, height: height)
        let response = try await encryptedSend(request)
        let name = "POST /resource"
        guard response.isSuccess else {
            let status: HAPStatus
            do {
                status = try HAPCharacteristicResult.status(httpStatus: response.status, body: response.body)
            } catch {
                throw .invalidResponse(error, request: name)
            }
            throw .refused(status, request: name)
        }
        guard response.body.count > 2, response.body[0] == 0xFF, response.body[1] == 0xD8 else {
            throw .invalidResponse(.unexpectedBody("expected a JPEG image, got \(response.body.count) bytes"), request: name)
        }
        return response.body
    }
}
