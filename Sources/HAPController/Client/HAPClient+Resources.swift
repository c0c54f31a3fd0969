import HomeModel

extension HAPClient {
    /// How long a snapshot may take: longer than a request (cameras take seconds for an image, HAP-python
    /// gives up after 10 s and answers an error), so that a slow camera does not cost the connection.
    public static let snapshotTimeout: Duration = .seconds(20)

    /// A JPEG snapshot from the camera `aid` with `POST /resource` (docs/hap-notes.md §4.9), about
    /// `width` × `height` pixels, waiting up to `snapshotTimeout`.
    /// - Throws: `.refused` when the accessory answers with a HAP status (`{"status":-70409}`), or
    ///   `.invalidResponse` for any other HTTP error or a body that is not a JPEG (empty, or not starting
    ///   with the JPEG marker `FF D8`); the connection's errors.
    public func snapshot(aid: Int, width: Int, height: Int) async throws(HAPConnectionError) -> [UInt8] {
        let request = HAPRequests.snapshot(aid: aid, width: width, height: height)
        guard await connection.isEncrypted else { throw .notVerified }
        let response = try await connection.send(request, timeout: Self.snapshotTimeout)
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
            throw .invalidResponse(
                .unexpectedBody("expected a JPEG image, got \(response.body.count) bytes"), request: name)
        }
        return response.body
    }
}
