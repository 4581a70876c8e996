/// A point on the Earth, in degrees.
///
/// Latitude is in [-90, 90] and longitude in [-180, 180] for a valid point;
/// the type does not enforce it (pure functions turn out-of-domain input into
/// NaN, validation refuses it with a reason).
public struct Coordinate: Sendable, Hashable, Codable {
  public var latitudeDegrees: Double
  public var longitudeDegrees: Double

  public init(latitudeDegrees: Double, longitudeDegrees: Double) {
    self.latitudeDegrees = latitudeDegrees
    self.longitudeDegrees = longitudeDegrees
  }
}
